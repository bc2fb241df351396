import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Layer } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';
import { pathKind } from './read-text.js';

/** A file to load, with what it is and where it came from. */
export interface DiscoveredFile {
  file: string;
  kind: DefinitionKind;
  layer: Layer;
  /** The id to use when the file names none (the owner policy is always `owner`). */
  defaultId?: string;
}

/** The roots of the three standard layers. */
export interface LayerRoots {
  /** neo's install directory (holds definitions/ and personas/). */
  packaged: string;
  /** NEO_HOME. */
  user?: string;
  /** The project's repository root. */
  project?: string;
}

/**
 * One folder a layer reads definitions from, and what each file name in it is. Discovery,
 * the watcher and classification of a new file all read this one table.
 */
export interface LayerFolder {
  folder: string;
  layer: Layer;
  classify(name: string): Pick<DiscoveredFile, 'kind' | 'defaultId'> | undefined;
}

const YAML_KINDS: DefinitionKind[] = ['backend', 'policy', 'capability', 'routing'];
const isYaml = (name: string) => /\.ya?ml$/.test(name);
const isMarkdown = (name: string) => name.endsWith('.md') && !/^(readme|changelog)\.md$/i.test(name);
const onlyKind = (kind: DefinitionKind, test: (name: string) => boolean) => (name: string) =>
  test(name) ? { kind } : undefined;

function definitionFolders(root: string, layer: Layer): LayerFolder[] {
  return YAML_KINDS.map((kind) => ({
    folder: join(root, KIND_INFO[kind].folder),
    layer,
    classify: onlyKind(kind, isYaml),
  }));
}

/** The folders of a repository's project layer (`neo trust` pins what they hold). */
export function projectFolders(repo: string, layer: Layer = 'project'): LayerFolder[] {
  const neo = join(repo, '.neo');
  return [
    ...definitionFolders(join(neo, 'definitions'), layer),
    { folder: join(repo, '.claude', 'agents'), layer, classify: onlyKind('persona', isMarkdown) },
    { folder: join(neo, 'personas'), layer, classify: onlyKind('persona', isMarkdown) },
    { folder: join(neo, 'flows'), layer, classify: onlyKind('flow', isYaml) },
    { folder: neo, layer, classify: (name) => (name === 'neo.yaml' ? { kind: 'config' } : undefined) },
  ];
}

/** The folders of the standard layers, lowest layer first. */
export function layerFolderTable(roots: LayerRoots): LayerFolder[] {
  const table: LayerFolder[] = [
    ...definitionFolders(join(roots.packaged, 'definitions'), 'packaged'),
    { folder: join(roots.packaged, 'personas'), layer: 'packaged', classify: onlyKind('persona', isMarkdown) },
  ];
  if (roots.user !== undefined) {
    const home = roots.user;
    table.push(
      ...definitionFolders(join(home, 'definitions'), 'user'),
      { folder: join(home, 'agents'), layer: 'user', classify: onlyKind('persona', isMarkdown) },
      { folder: join(home, 'flows'), layer: 'user', classify: onlyKind('flow', isYaml) },
      {
        folder: home,
        layer: 'user',
        classify: (name) =>
          name === 'policy.yaml'
            ? { kind: 'policy', defaultId: 'owner' }
            : name === 'neo.yaml'
              ? { kind: 'config' }
              : undefined,
      },
    );
  }
  if (roots.project !== undefined) table.push(...projectFolders(roots.project, 'project'));
  return table;
}

/**
 * The folders a folder named on the command line contributes: its flows (`plan.yaml`,
 * `*.flow.yaml`, `flows/`), `personas/`, `agents/`, `definitions/`, and its `.neo/` project layer.
 */
export function pathFolderTable(dir: string): LayerFolder[] {
  const top = (name: string) => {
    const kind = kindOfPath(join(dir, name));
    return kind === 'flow' || kind === 'config' ? { kind } : undefined;
  };
  return [
    { folder: dir, layer: 'path', classify: top },
    { folder: join(dir, 'flows'), layer: 'path', classify: onlyKind('flow', isYaml) },
    { folder: join(dir, 'personas'), layer: 'path', classify: onlyKind('persona', isMarkdown) },
    { folder: join(dir, 'agents'), layer: 'path', classify: onlyKind('persona', isMarkdown) },
    ...definitionFolders(join(dir, 'definitions'), 'path'),
    ...projectFolders(dir, 'path'),
  ];
}

/**
 * Lists each folder of a table and keeps the files it classifies, in table order.
 *
 * Discovery is synchronous, and asks whether a folder exists before listing it: most folders
 * of the table do not exist, and every command starts here. A dozen thread-pool round trips,
 * each failing with an ENOENT error that captures a stack, cost a short command milliseconds;
 * these calls cost microseconds.
 */
export function discoverTable(table: readonly LayerFolder[]): DiscoveredFile[] {
  const out: DiscoveredFile[] = [];
  table.forEach((entry) => {
    for (const name of listFolder(entry.folder)) {
      const found = entry.classify(name);
      if (found) out.push({ file: join(entry.folder, name), layer: entry.layer, ...found });
    }
  });
  return out;
}

/** Every definition file of the standard layers, lowest layer first. */
export function discoverLayers(roots: LayerRoots): DiscoveredFile[] {
  return discoverTable(layerFolderTable(roots));
}

/** What a single file is, when it sits directly in a folder of `table`. */
export function classifyFile(table: readonly LayerFolder[], file: string): DiscoveredFile | undefined {
  const folder = dirname(file);
  const name = basename(file);
  let found: DiscoveredFile | undefined;
  // Later entries win, as later layers do.
  for (const entry of table) {
    if (entry.folder !== folder) continue;
    const kind = entry.classify(name);
    if (kind) found = { file, layer: entry.layer, ...kind };
  }
  return found;
}

/**
 * What kind a file is, from where it sits: `*.md` is a persona; `plan.yaml`, `*.flow.yaml` and
 * files under `flows/` are flows; files under `definitions/<folder>/` are that folder's kind;
 * `neo.yaml` is config; `policy.yaml` is a policy. Undefined when it cannot tell.
 */
export function kindOfPath(file: string): DefinitionKind | undefined {
  const name = basename(file);
  const parent = basename(dirname(file));
  if (name.endsWith('.md')) return 'persona';
  if (!isYaml(name)) return undefined;
  if (name === 'neo.yaml' || name === 'neo.yml') return 'config';
  if (name === 'plan.yaml' || name === 'plan.yml' || /\.flow\.ya?ml$/.test(name) || parent === 'flows') return 'flow';
  if (name === 'policy.yaml') return 'policy';
  for (const kind of YAML_KINDS) if (parent === KIND_INFO[kind].folder) return kind;
  return undefined;
}

/**
 * Files and folders named on the command line, as the `path` layer. What is neither (a FIFO, a
 * device, a symbolic-link loop) is a problem, as the same file inside a layer folder is. A file of
 * `flows` is a flow whatever its name.
 */
export function discoverPaths(
  paths: readonly string[],
  flows: ReadonlySet<string> = new Set(),
): {
  files: DiscoveredFile[];
  unknown: string[];
  missing: string[];
  problems: Diagnostic[];
  table: LayerFolder[];
} {
  const files: DiscoveredFile[] = [];
  const unknown: string[] = [];
  const missing: string[] = [];
  const problems: Diagnostic[] = [];
  const table: LayerFolder[] = [];
  for (const raw of paths) {
    const path = resolve(raw);
    const kind = pathKind(path);
    if (kind === 'missing') {
      missing.push(path);
    } else if (typeof kind === 'object') {
      problems.push(kind.diagnostic);
    } else if (kind === 'file') {
      const definitionKind = flows.has(path) ? 'flow' : kindOfPath(path);
      if (definitionKind === undefined) unknown.push(path);
      else files.push({ file: path, kind: definitionKind, layer: 'path' });
    } else {
      const folders = pathFolderTable(path);
      table.push(...folders);
      files.push(...discoverTable(folders));
    }
  }
  return { files, unknown, missing, problems, table };
}

/** A folder's entries, sorted; none when it is missing or unreadable. */
function listFolder(dir: string): string[] {
  try {
    // Inside the try: a symbolic-link loop or a file where a folder belongs throws, not only ENOENT.
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The repository root above `cwd`: the nearest folder with `.git` or `.neo`, else `cwd` (synchronous, as discovery is). */
export function findRepoRoot(cwd: string, options: { exclude?: string } = {}): string {
  let dir = resolve(cwd);
  for (;;) {
    for (const marker of ['.git', '.neo']) {
      const found = join(dir, marker);
      // NEO_HOME (~/.neo) is the user layer, not a project marker.
      if (
        statSync(found, { throwIfNoEntry: false }) !== undefined &&
        (options.exclude === undefined || resolve(found) !== resolve(options.exclude))
      )
        return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}
