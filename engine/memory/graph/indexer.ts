/**
 * Indexes a repository's code into its memory database, incrementally: the files are git's view
 * (`git ls-files`: tracked plus untracked-but-not-ignored, so `.gitignore` is honoured), a file
 * whose size and mtime are unchanged is not read, one whose content hash is unchanged is not
 * parsed, and a file gone from git's view leaves the graph. Files are written in batches, each its
 * own transaction: a `kill -9` mid-index loses at most the batch it interrupted, and the next run
 * picks up where the hashes say.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gitFailure, runGit } from '../../execution/index.js';
import type { Database } from '../database.js';
import { languageOf, type Language } from './languages.js';
import { parserFor, type FileFacts } from './parse.js';
import { goModulePath, resolveImport, type ResolveContext } from './resolve.js';

/** Files larger than this are not code a map needs (bundles, generated tables). */
export const MAX_FILE_BYTES = 512 * 1024;
const BATCH = 100;

export interface IndexReport {
  files: number;
  parsed: number;
  removed: number;
  unchanged: number;
  skipped: number;
  ms: number;
}

/** The files git shows under `root` (its own view: nothing ignored, no submodule content), through neo's hardened git. */
export async function gitFiles(root: string): Promise<string[]> {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
  const run = await runGit(root, args);
  if (!run.ok) throw new Error(gitFailure(args, run));
  return [...new Set(run.stdout.split('\0').filter((p) => p !== ''))];
}

interface Known {
  id: number;
  hash: string;
  size: number;
  mtime_ms: number;
}

/** Brings the graph of `root` up to date; `only` limits it to paths under a folder or one file. */
export async function indexRepository(
  db: Database,
  root: string,
  options: { only?: string } = {},
): Promise<IndexReport> {
  const started = performance.now();
  const everything = await gitFiles(root);
  const listed = everything.filter((p) => languageOf(p) !== undefined);
  const scope = options.only?.replace(/^\.\//, '').replace(/\/+$/, '');
  const inScope = (p: string) =>
    scope === undefined || scope === '' || scope === '.' || p === scope || p.startsWith(`${scope}/`);
  const all = new Set(listed);
  const context: ResolveContext = { files: all, goModules: goModules(root, everything) };
  const known = new Map(
    (db.prepare('SELECT id, path, hash, size, mtime_ms FROM files').all() as Array<Known & { path: string }>).map(
      (r) => [r.path, r],
    ),
  );
  const work: Array<{ path: string; lang: Language; text: string; hash: string; size: number; mtime: number }> = [];
  let unchanged = 0;
  let skipped = 0;
  for (const path of listed) {
    if (!inScope(path)) continue;
    let size: number;
    let mtime: number;
    try {
      const info = statSync(join(root, path));
      if (!info.isFile()) continue;
      size = info.size;
      mtime = Math.trunc(info.mtimeMs);
    } catch {
      continue; // Listed but deleted in the work tree: gone below.
    }
    const before = known.get(path);
    if (before !== undefined && before.size === size && before.mtime_ms === mtime) {
      unchanged++;
      continue;
    }
    if (size > MAX_FILE_BYTES) {
      skipped++;
      continue;
    }
    const buffer = readFileSync(join(root, path));
    const hash = createHash('sha1').update(buffer).digest('hex');
    if (before !== undefined && before.hash === hash) {
      db.prepare('UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?').run(size, mtime, before.id);
      unchanged++;
      continue;
    }
    work.push({ path, lang: languageOf(path)!, text: buffer.toString('utf8'), hash, size, mtime });
  }
  const gone = [...known.keys()].filter((p) => inScope(p) && (!all.has(p) || !existsFile(root, p)));
  const parse = work.length === 0 ? undefined : await parserFor(new Set(work.map((w) => w.lang)));
  const write = writer(db);
  db.transaction(() => {
    for (const path of gone) db.prepare('DELETE FROM files WHERE path = ?').run(path);
  }).immediate();
  for (let i = 0; i < work.length; i += BATCH) {
    const batch = work.slice(i, i + BATCH).map((w) => {
      let facts: FileFacts;
      try {
        facts = parse!(w.text, w.lang);
      } catch {
        facts = { symbols: [], refs: [], imports: [] };
      }
      return { ...w, facts };
    });
    db.transaction(() => {
      for (const item of batch) write(item, context);
    }).immediate();
  }
  if (work.length > 0 || gone.length > 0) bumpGeneration(db);
  return {
    files: listed.filter(inScope).length,
    parsed: work.length,
    removed: gone.length,
    unchanged,
    skipped,
    ms: Math.round(performance.now() - started),
  };
}

/** Marks the graph changed: what is derived from all of it (the map's edges) is computed again on next use. */
function bumpGeneration(db: Database): void {
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('graph_generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
  ).run();
}

/** The repository's Go modules: each listed go.mod's folder and the module path it declares. */
function goModules(root: string, files: readonly string[]): Array<{ dir: string; module: string }> {
  const modules: Array<{ dir: string; module: string }> = [];
  for (const path of files) {
    if (path !== 'go.mod' && !path.endsWith('/go.mod')) continue;
    try {
      const module = goModulePath(readFileSync(join(root, path), 'utf8').slice(0, 64 * 1024));
      if (module !== undefined)
        modules.push({ dir: path === 'go.mod' ? '.' : path.slice(0, -'/go.mod'.length), module });
    } catch {
      // Unreadable: its imports stay unresolved.
    }
  }
  return modules;
}

function existsFile(root: string, path: string): boolean {
  try {
    return statSync(join(root, path)).isFile();
  } catch {
    return false;
  }
}

function writer(db: Database) {
  const remove = db.prepare('DELETE FROM files WHERE path = ?');
  const file = db.prepare(
    'INSERT INTO files (path, lang, hash, size, mtime_ms, is_test) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
  );
  const symbol = db.prepare(
    'INSERT INTO symbols (file_id, name, kind, parent, start_line, end_line, signature) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const ref = db.prepare('INSERT INTO refs (file_id, name, line, kind, caller) VALUES (?, ?, ?, ?, ?)');
  const imp = db.prepare('INSERT INTO imports (file_id, spec, target, line) VALUES (?, ?, ?, ?)');
  return (
    item: { path: string; lang: Language; hash: string; size: number; mtime: number; facts: FileFacts },
    context: ResolveContext,
  ) => {
    remove.run(item.path);
    const { id } = file.get(
      item.path,
      item.lang.id,
      item.hash,
      item.size,
      item.mtime,
      item.lang.isTest(item.path) ? 1 : 0,
    ) as {
      id: number;
    };
    for (const s of item.facts.symbols)
      symbol.run(id, s.name, s.kind, s.parent ?? null, s.startLine, s.endLine, s.signature);
    for (const r of item.facts.refs) ref.run(id, r.name, r.line, r.kind, r.caller ?? null);
    // One row per file an import resolves to (a Go package is every file of its folder), one unresolved row otherwise.
    for (const i of item.facts.imports) {
      const targets = resolveImport(item.path, i.spec, item.lang.id, context);
      if (targets.length === 0) imp.run(id, i.spec, null, i.line);
      for (const target of targets) imp.run(id, i.spec, target, i.line);
    }
  };
}
