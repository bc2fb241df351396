import { watch, type FSWatcher } from 'chokidar';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { DefinitionSet, DefinitionSetDiff } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { classifyFile, layerFolderTable, pathFolderTable } from './discover.js';
import type { DefinitionLoader, LoadResult } from './loader.js';

/** What a watcher reports after a batch of file changes. */
export type ReloadEvent =
  | {
      type: 'reloaded';
      files: string[];
      set: DefinitionSet;
      previous: DefinitionSet;
      diff: DefinitionSetDiff;
      diagnostics: Diagnostic[];
    }
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
const CHOKIDAR_CHANGE_THROTTLE_MS = 50;

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/** Size and mtime: enough to tell that a file changed after it was loaded. */
function signatureOf(file: string): string {
  try {
    const info = statSync(file);
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/**
 * Watches every layer. A batch of changes (debounced, so an editor's temp-file-and-rename save
 * or a burst of saves is one reload) re-parses only the changed files and publishes a new set
 * when the batch introduces no new error; otherwise the last good set stays live and the new
 * errors are reported. Nothing running is torn down either way.
 */
export function watchDefinitions(
  loader: DefinitionLoader,
  initial: LoadResult,
  onEvent: (event: ReloadEvent) => void,
  options: WatchOptions = {},
): DefinitionWatcher {
  const debounceMs = options.debounceMs ?? 8;
  let current = initial.set;
  let knownErrors = errorKeys(initial.diagnostics);
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const table = [
    ...layerFolderTable(loader.roots),
    ...(options.paths ?? []).map((p) => resolve(p)).flatMap(pathFolderTable),
  ];
  const folders = table.map((entry) => resolve(entry.folder));
  const folderSet = new Set(folders);
  const ancestors = new Set<string>();
  for (const folder of folders)
    for (let dir = folder; ; dir = dirname(dir)) {
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

  const watcher: FSWatcher = watch(roots, {
    ignoreInitial: true,
    ignored,
    followSymlinks: false,
    atomic: true,
    persistent: true,
  });

  const flush = async () => {
    const files = [...pending];
    pending.clear();
    try {
      let result: LoadResult | undefined;
      const added = files.some((file) => !loader.knows(file));
      for (const file of files) loadedSignature.set(file, signatureOf(file));
      for (const file of files) {
        const entry = existsSync(file) ? (loader.entryFor(file) ?? classifyFile(table, file)) : undefined;
        if (entry !== undefined) result = await loader.reloadFile(file, entry);
        else if (loader.knows(file)) result = loader.removeFile(file);
      }
      // A rename's unlink can arrive in a later batch than its add: look for vanished files in
      // the folders this batch touched, so one batch shows the whole rename.
      if (added) {
        const present = new Map<string, Set<string>>();
        for (const folder of new Set(files.map((f) => dirname(f)))) present.set(folder, new Set(safeList(folder)));
        for (const file of loader.files()) {
          const names = present.get(dirname(file));
          if (names !== undefined && !names.has(basename(file)) && !files.includes(file)) {
            result = loader.removeFile(file);
            files.push(file);
          }
        }
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
      onEvent({
        type: 'reloaded',
        files,
        set: current,
        previous,
        diff: current.diff(previous),
        diagnostics: result.diagnostics.filter((d) => files.includes(d.span?.file ?? '')),
      });
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
    settleCheck(abs);
  };

  // chokidar drops a second `change` for the same file within 50 ms. So after the last event
  // for a file, look once more when that window has passed: if the file differs from what was
  // loaded, reload it. Without this, the last save of a quick edit-fix could go unseen.
  const loadedSignature = new Map<string, string>();
  const settleTimers = new Map<string, NodeJS.Timeout>();
  const settleCheck = (file: string) => {
    clearTimeout(settleTimers.get(file));
    settleTimers.set(
      file,
      setTimeout(() => {
        settleTimers.delete(file);
        if (signatureOf(file) !== loadedSignature.get(file)) schedule(file);
      }, CHOKIDAR_CHANGE_THROTTLE_MS + 10),
    );
  };
  watcher.on('add', schedule).on('change', schedule).on('unlink', schedule);
  watcher.on('error', (error) => onEvent({ type: 'error', error }));

  const ready = new Promise<void>((resolveReady) => watcher.once('ready', () => resolveReady()));
  return {
    current: () => current,
    ready,
    async close() {
      if (timer) clearTimeout(timer);
      for (const pendingTimer of settleTimers.values()) clearTimeout(pendingTimer);
      await running;
      await watcher.close();
    },
  };
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
