import { watch, type FSWatcher } from 'node:fs';
import { mkdirPrivate } from './private-store.js';

/**
 * Waits for an answer that another process drops into `dir` (`take` reads it, or returns
 * undefined), or that a person gives at the terminal (`ask`) — whichever comes first.
 * fs.watch wakes it at once; a slow poll covers what a watcher can miss (an editor's rename, a
 * network file system). Resolves undefined when `signal` aborts: an unanswered question never
 * answers itself. The terminal prompt gets a signal that aborts once the wait is over.
 */
export function awaitAnswer<T>(options: {
  dir: string;
  take: () => Promise<T | undefined>;
  signal: AbortSignal;
  ask?: (signal: AbortSignal) => Promise<T | undefined>;
  pollMs?: number;
}): Promise<T | undefined> {
  const { dir, take, signal } = options;
  return new Promise<T | undefined>((resolve) => {
    let settled = false;
    let watcher: FSWatcher | undefined;
    let checking = false;
    const done = new AbortController();
    const finish = (answer: T | undefined) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      watcher?.close();
      done.abort();
      resolve(answer);
    };
    const check = async () => {
      if (checking || settled) return;
      checking = true;
      try {
        const answer = await take();
        if (answer !== undefined) finish(answer);
      } catch {
        // An unreadable answer file is treated as no answer yet.
      } finally {
        checking = false;
      }
    };
    void mkdirPrivate(dir).then(
      () => {
        if (settled) return;
        try {
          watcher = watch(dir, () => void check());
          watcher.on('error', () => undefined);
        } catch {
          watcher = undefined;
        }
      },
      () => undefined,
    );
    const poll = setInterval(() => void check(), options.pollMs ?? 500);
    poll.unref();
    if (signal.aborted) finish(undefined);
    signal.addEventListener('abort', () => finish(undefined), { once: true });
    void check();
    options.ask?.(AbortSignal.any([signal, done.signal])).then(
      (answer) => {
        if (answer !== undefined) finish(answer);
      },
      () => undefined,
    );
  });
}
