/**
 * Watches NEO_HOME/approvals for questions a driving persona puts to a person, in any process,
 * and publishes each new one as `approval_requested`. (Flow approval steps are published from
 * the run's own events.) A rescan follows every change, debounced; a missing folder is created.
 */
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { readQuestions, type InboxItem } from './approvals.js';
import { mkdirPrivate } from '../util/private-store.js';

export async function watchQuestions(home: string, requested: (item: InboxItem) => void): Promise<() => void> {
  const dir = join(home, 'approvals');
  await mkdirPrivate(dir);
  let seen = new Set((await readQuestions(home)).map(keyOf));
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const rescan = async () => {
    const items = await readQuestions(home).catch(() => undefined);
    if (items === undefined || closed) return;
    for (const item of items) if (!seen.has(keyOf(item))) requested(item);
    seen = new Set(items.map(keyOf));
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void rescan(), 100);
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // No recursive watching here: the inbox is still read on request.
  }
  return () => {
    closed = true;
    clearTimeout(timer);
    watcher?.close();
  };
}

function keyOf(item: InboxItem): string {
  return `${item.runId}/${item.key}`;
}
