/**
 * Definition-looking files in a project's `.neo/` that no layer folder reads: a backend in
 * `.neo/backends/` (its place is `.neo/definitions/backends/`), a persona in `.neo/agents/`. Each
 * is a warning that names the file and where it belongs, so a file neo skips is never skipped in
 * silence. A script a flow plays (`.neo/flows/scripts/fix.yaml`) is no stray.
 */
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { Diagnostic } from './diagnostic.js';
import { classifyFile, layerFolderTable } from './discover.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';

/** How deep under `.neo/` to look (`.neo/definitions/<folder>/<file>` is three levels). */
const MAX_DEPTH = 3;
/** Entries read at most, so a huge folder someone keeps in `.neo/` costs nothing noticeable. */
const MAX_ENTRIES = 2000;

const looksLikeDefinition = (name: string) =>
  /\.ya?ml$/.test(name) || (name.endsWith('.md') && !/^(readme|changelog)\.md$/i.test(name));

/** Warnings for the definition-looking files under `<project>/.neo/` that neo does not load. */
export function strayProjectFiles(project: string, skip: readonly string[] = []): Diagnostic[] {
  const root = join(project, '.neo');
  const table = layerFolderTable({ packaged: project, project });
  const out: Diagnostic[] = [];
  let budget = MAX_ENTRIES;
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget < 0) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH && !skip.some((s) => path === s || path.startsWith(s + sep))) walk(path, depth + 1);
      } else if (
        entry.isFile() &&
        looksLikeDefinition(entry.name) &&
        classifyFile(table, path) === undefined &&
        !isScript(path)
      ) {
        out.push(stray(root, path));
      }
    }
  };
  walk(root, 1);
  return out;
}

/**
 * A script for the script backend (a top-level `turns:` in its first 4 KB): it belongs beside
 * the flow that plays it (`.neo/flows/scripts/`), in no layer folder.
 */
function isScript(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4096);
    const read = readSync(fd, head, 0, head.length, 0);
    return /^turns:/m.test(head.subarray(0, read).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function stray(root: string, file: string): Diagnostic {
  const at = { line: 1, column: 1, offset: 0 };
  return {
    code: 'DEF_NOT_LOADED',
    severity: 'warning',
    message: `.neo/${relative(root, file).split(sep).join('/')} looks like a definition, but neo does not load files from there`,
    span: { file, start: at, end: at },
    hint: placeHint(file),
  };
}

/** Where the file belongs, guessed from its folder's name and its extension. */
function placeHint(file: string): string {
  const folder = basename(join(file, '..'));
  const kind = (Object.keys(KIND_INFO) as DefinitionKind[]).find((k) => KIND_INFO[k].folder === folder);
  if (kind === 'flow' || kind === 'persona') return `move it to .neo/${folder}/`;
  if (kind !== undefined) return `move it to .neo/definitions/${folder}/`;
  if (file.endsWith('.md') || folder === 'agents') return 'a persona goes in .neo/personas/';
  return 'the layout: .neo/definitions/{backends,policies,capabilities,routing}/, .neo/personas/, .neo/flows/, .neo/neo.yaml';
}
