import { watch, type FSWatcher } from 'chokidar';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DefinitionSet, DefinitionSetDiff } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { discoverLayers, discoverPaths, layerFolders, type DiscoveredFile } from './discover.js';
import type { DefinitionLoader, LoadResult } from './loader.js';

/** What a watcher reports after a batch of file changes. */
export type ReloadEvent =
  | { type: 'reloaded'; files: string[]; set: DefinitionSet; previous: DefinitionSet; diff: DefinitionSetDiff; diagnostics: Diagnostic[] }
  | { type: 'rejected'; files: string[]; set: DefinitionSet; diagnostics: Diagnostic[] }
  | { type: 'unchanged'; files: string[]; set: DefinitionSet }
  | { type: 'error'; error: unknown };

export interface DefinitionWatcher {
  /** The last good set; what new runs and sessions get. */
  current(): DefinitionSet;
  /** Resolves once the initial scan is done and changes are being watched. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Quiet time that ends a burst of saves (default 8 ms). */
  debounceMs?: number;
  /** Extra folders the path layer reads (for explicitly named folders). */
  paths?: readonly string[];
}

const DEFINITION_FILE = /\.(ya?ml|md)$/;

/**
 * Watches every layer. A batch of changes (debounced, so an editor's temp-file-and-rename save
 * or a burst of saves is one reload) re-parses only the changed files and publishes a new set
 * when the batch introduces no new error; otherwise the last good set stays live and the new
 * errors are reported. Nothing running is torn down either way.
 */
export function watchDefinitions(loader: DefinitionLoader, initial: LoadResult, onEvent: (event: ReloadEvent) => void, options: WatchOptions = {}): DefinitionWatcher {
  const debounceMs = options.debounceMs ?? 8;
  let current = initial.set;
  let knownErrors = errorKeys(initial.diagnostics);
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const folders = [...layerFolders(loader.roots), ...(options.paths ?? []).flatMap(pathLayerFolders)].map((f) => resolve(f));
  const folderSet = new Set(folders);
  const ancestors = new Set<string>();
  for (const folder of folders) for (let dir = folder; ; dir = dirname(dir)) {
    if (ancestors.has(dir)) break;
    ancestors.add(dir);
    if (dirname(dir) === dir) break;
  }
  const roots = [...new Set(folders.map(nearestExisting))];

  // Only layer folders, their ancestors and definition files directly inside a layer folder are
  // watched: a session store, a node_modules or a symlink loop below a layer is never walked.
  const ignored = (path: string): boolean => {
    const abs = resolve(path);
    if (ancestors.has(abs) || folderSet.has(abs)) return false;
    return !(DEFINITION_FILE.test(abs) && folderSet.has(dirname(abs)));
  };

  const watcher: FSWatcher = watch(roots, { ignoreInitial: true, ignored, followSymlinks: false, atomic: true, persistent: true });

  const flush = async () => {
    const files = [...pending];
    pending.clear();
    try {
      let result: LoadResult | undefined;
      const discovered = await rediscover(loader, options.paths ?? []);
      for (const file of files) {
        const entry = discovered.get(file);
        if (entry !== undefined) result = await loader.reloadFile(file, entry);
        else if (loader.knows(file)) result = loader.removeFile(file);
      }
      if (result === undefined) return;
      const errors = errorKeys(result.diagnostics);
      const fresh = result.diagnostics.filter((d) => d.severity === 'error' && !knownErrors.has(errorKey(d)));
      if (fresh.length > 0) {
        onEvent({ type: 'rejected', files, set: current, diagnostics: fresh });
        return;
      }
      knownErrors = errors;
      if (result.set.hash === current.hash) {
        onEvent({ type: 'unchanged', files, set: current });
        return;
      }
      const previous = current;
      current = result.set;
      onEvent({ type: 'reloaded', files, set: current, previous, diff: current.diff(previous), diagnostics: result.diagnostics.filter((d) => files.includes(d.span?.file ?? '')) });
    } catch (error) {
      onEvent({ type: 'error', error });
    }
  };

  const schedule = (path: string) => {
    const abs = resolve(path);
    if (!DEFINITION_FILE.test(abs)) return;
    pending.add(abs);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(flush);
    }, debounceMs);
  };
  watcher.on('add', schedule).on('change', schedule).on('unlink', schedule);
  watcher.on('error', (error) => onEvent({ type: 'error', error }));

  const ready = new Promise<void>((resolveReady) => watcher.once('ready', () => resolveReady()));
  return {
    current: () => current,
    ready,
    async close() {
      if (timer) clearTimeout(timer);
      await running;
      await watcher.close();
    },
  };
}

async function rediscover(loader: DefinitionLoader, paths: readonly string[]): Promise<Map<string, DiscoveredFile>> {
  const map = new Map<string, DiscoveredFile>();
  for (const entry of await discoverLayers(loader.roots)) map.set(resolve(entry.file), entry);
  for (const entry of (await discoverPaths(paths)).files) map.set(resolve(entry.file), entry);
  return map;
}

function pathLayerFolders(path: string): string[] {
  const dir = resolve(path);
  const sub = ['flows', 'personas', 'agents', 'definitions/backends', 'definitions/policies', 'definitions/capabilities', 'definitions/routing'];
  return [dir, ...sub.map((s) => join(dir, ...s.split('/'))), join(dir, '.neo'), join(dir, '.neo', 'personas'), join(dir, '.neo', 'flows'), join(dir, '.claude', 'agents')];
}

function nearestExisting(folder: string): string {
  // chokidar cannot watch a folder that does not exist yet; watch its nearest existing ancestor
  // and let the ignore filter admit the folder when it appears.
  let dir = folder;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function errorKey(d: Diagnostic): string {
  return `${d.code}|${d.span?.file ?? ''}|${d.pointer ?? ''}|${d.message}`;
}

function errorKeys(diagnostics: readonly Diagnostic[]): Set<string> {
  return new Set(diagnostics.filter((d) => d.severity === 'error').map(errorKey));
}
