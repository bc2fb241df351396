import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Layer } from './definition.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';

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

const YAML_KINDS: DefinitionKind[] = ['backend', 'policy', 'capability', 'routing'];

/** Every definition file of the standard layers, lowest layer first. */
export async function discoverLayers(roots: LayerRoots): Promise<DiscoveredFile[]> {
  const out: DiscoveredFile[] = [];
  out.push(...(await definitionFolders(join(roots.packaged, 'definitions'), 'packaged')));
  out.push(...(await filesIn(join(roots.packaged, 'personas'), '.md', 'persona', 'packaged')));
  if (roots.user !== undefined) {
    const home = roots.user;
    out.push(...(await definitionFolders(join(home, 'definitions'), 'user')));
    out.push(...(await filesIn(join(home, 'agents'), '.md', 'persona', 'user')));
    out.push(...(await yamlFilesIn(join(home, 'flows'), 'flow', 'user')));
    if (await isFile(join(home, 'policy.yaml'))) out.push({ file: join(home, 'policy.yaml'), kind: 'policy', layer: 'user', defaultId: 'owner' });
    if (await isFile(join(home, 'neo.yaml'))) out.push({ file: join(home, 'neo.yaml'), kind: 'config', layer: 'user' });
  }
  if (roots.project !== undefined) out.push(...(await discoverProject(roots.project)));
  return out;
}

/** The project layer: `<repo>/.neo/**` plus Claude Code's `<repo>/.claude/agents/*.md`. */
export async function discoverProject(repo: string): Promise<DiscoveredFile[]> {
  const neo = join(repo, '.neo');
  const out: DiscoveredFile[] = [];
  out.push(...(await definitionFolders(join(neo, 'definitions'), 'project')));
  out.push(...(await filesIn(join(repo, '.claude', 'agents'), '.md', 'persona', 'project')));
  out.push(...(await filesIn(join(neo, 'personas'), '.md', 'persona', 'project')));
  out.push(...(await yamlFilesIn(join(neo, 'flows'), 'flow', 'project')));
  if (await isFile(join(neo, 'neo.yaml'))) out.push({ file: join(neo, 'neo.yaml'), kind: 'config', layer: 'project' });
  return out;
}

/** The folders a layer watcher must watch. */
export function layerFolders(roots: LayerRoots): string[] {
  const folders = [join(roots.packaged, 'personas'), ...YAML_KINDS.map((k) => join(roots.packaged, 'definitions', KIND_INFO[k].folder))];
  if (roots.user !== undefined) {
    const home = roots.user;
    folders.push(home, join(home, 'agents'), join(home, 'flows'), ...YAML_KINDS.map((k) => join(home, 'definitions', KIND_INFO[k].folder)));
  }
  if (roots.project !== undefined) {
    const neo = join(roots.project, '.neo');
    folders.push(neo, join(neo, 'personas'), join(neo, 'flows'), join(roots.project, '.claude', 'agents'), ...YAML_KINDS.map((k) => join(neo, 'definitions', KIND_INFO[k].folder)));
  }
  return folders;
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
  if (!/\.ya?ml$/.test(name)) return undefined;
  if (name === 'neo.yaml' || name === 'neo.yml') return 'config';
  if (name === 'plan.yaml' || name === 'plan.yml' || /\.flow\.ya?ml$/.test(name) || parent === 'flows') return 'flow';
  if (name === 'policy.yaml') return 'policy';
  for (const kind of YAML_KINDS) if (parent === KIND_INFO[kind].folder) return kind;
  return undefined;
}

/**
 * Files named on the command line. A folder contributes its flows (`plan.yaml`, `*.flow.yaml`,
 * `flows/`), its `personas/` and `agents/`, its `definitions/`, and — when it has one — its
 * `.neo/` project layer.
 */
export async function discoverPaths(paths: readonly string[]): Promise<{ files: DiscoveredFile[]; unknown: string[]; missing: string[] }> {
  const files: DiscoveredFile[] = [];
  const unknown: string[] = [];
  const missing: string[] = [];
  for (const raw of paths) {
    const path = resolve(raw);
    let info;
    try {
      info = await stat(path);
    } catch {
      missing.push(path);
      continue;
    }
    if (info.isFile()) {
      const kind = kindOfPath(path);
      if (kind === undefined) unknown.push(path);
      else files.push({ file: path, kind, layer: 'path' });
      continue;
    }
    for (const entry of await safeReaddir(path)) {
      if (!/\.ya?ml$/.test(entry)) continue;
      const kind = kindOfPath(join(path, entry));
      if (kind === 'flow' || kind === 'config') files.push({ file: join(path, entry), kind, layer: 'path' });
    }
    files.push(...(await yamlFilesIn(join(path, 'flows'), 'flow', 'path')));
    files.push(...(await filesIn(join(path, 'personas'), '.md', 'persona', 'path')));
    files.push(...(await filesIn(join(path, 'agents'), '.md', 'persona', 'path')));
    files.push(...(await definitionFolders(join(path, 'definitions'), 'path')));
    files.push(...(await discoverProject(path)));
  }
  return { files, unknown, missing };
}

async function definitionFolders(root: string, layer: Layer): Promise<DiscoveredFile[]> {
  const out: DiscoveredFile[] = [];
  for (const kind of YAML_KINDS) out.push(...(await yamlFilesIn(join(root, KIND_INFO[kind].folder), kind, layer)));
  return out;
}

async function yamlFilesIn(dir: string, kind: DefinitionKind, layer: Layer): Promise<DiscoveredFile[]> {
  return (await safeReaddir(dir)).filter((name) => /\.ya?ml$/.test(name)).map((name) => ({ file: join(dir, name), kind, layer }));
}

async function filesIn(dir: string, extension: string, kind: DefinitionKind, layer: Layer): Promise<DiscoveredFile[]> {
  return (await safeReaddir(dir)).filter((name) => name.endsWith(extension) && !/^(readme|changelog)\.md$/i.test(name)).map((name) => ({ file: join(dir, name), kind, layer }));
}

async function safeReaddir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The repository root above `cwd`: the nearest folder with `.git` or `.neo`, else `cwd`. */
export async function findRepoRoot(cwd: string, options: { exclude?: string } = {}): Promise<string> {
  let dir = resolve(cwd);
  for (;;) {
    for (const marker of ['.git', '.neo']) {
      try {
        const found = join(dir, marker);
        await stat(found);
        // NEO_HOME (~/.neo) is the user layer, not a project marker.
        if (options.exclude === undefined || resolve(found) !== resolve(options.exclude)) return dir;
      } catch {
        // keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}
