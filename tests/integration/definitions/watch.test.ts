import { renameSync, writeFileSync } from 'node:fs';
import { rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadDefinitions,
  watchDefinitions,
  type DefinitionWatcher,
  type ReloadEvent,
} from '../../../engine/definitions/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const packaged = fileURLToPath(new URL('../../fixtures/definitions/packaged/', import.meta.url));
const persona = (description: string) => `---\ndescription: ${description}\n---\nBody\n`;

/** Collects watcher events and lets a test wait for the next one of a type. */
function recorder() {
  const events: ReloadEvent[] = [];
  const waiters: Array<{ type: ReloadEvent['type']; resolve: (e: ReloadEvent) => void }> = [];
  const push = (event: ReloadEvent) => {
    if (process.env.DEBUG_WATCH)
      console.log(
        'EVENT',
        event.type,
        'files' in event ? event.files : '',
        'diagnostics' in event ? event.diagnostics.map((d) => d.code) : '',
      );
    const i = waiters.findIndex((w) => w.type === event.type);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(event);
    else events.push(event);
  };
  const next = <T extends ReloadEvent['type']>(type: T): Promise<Extract<ReloadEvent, { type: T }>> => {
    const i = events.findIndex((e) => e.type === type);
    if (i >= 0) return Promise.resolve(events.splice(i, 1)[0] as Extract<ReloadEvent, { type: T }>);
    return new Promise((resolve) => waiters.push({ type, resolve: resolve as (e: ReloadEvent) => void }));
  };
  return { push, next, events };
}

let watcher: DefinitionWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
});

async function start() {
  const root = await tempDir();
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(root, {
    'home/agents/a.md': persona('first'),
    'repo/.git/HEAD': 'ref: refs/heads/main\n',
    'repo/.neo/personas/p.md': persona('project'),
  });
  const { set, diagnostics, loader } = await loadDefinitions({ packaged, home, cwd: repo });
  const rec = recorder();
  watcher = await watchDefinitions(loader, { set, diagnostics }, rec.push);
  await watcher.ready;
  return { home, repo, rec, initial: set };
}

describe('hot reload', () => {
  it('publishes a new set when a file changes, with what changed', async () => {
    const { home, rec, initial } = await start();
    await writeFile(join(home, 'agents', 'a.md'), persona('second'));
    const event = await rec.next('reloaded');
    expect(event.files).toEqual([join(home, 'agents', 'a.md')]);
    expect(event.diff).toEqual({ added: [], removed: [], changed: [{ kind: 'persona', id: 'a' }] });
    expect(event.previous.hash).toBe(initial.hash);
    expect(watcher!.current().get('persona', 'a')?.data.description).toBe('second');
  });

  it('keeps the last good set live when an edit is invalid, and recovers when fixed', async () => {
    const { home, rec, initial } = await start();
    await writeFile(join(home, 'agents', 'a.md'), '---\ndescription: broken\nmaxPosture: fulll\n---\n');
    const rejected = await rec.next('rejected');
    expect(rejected.diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column}`)).toEqual([
      'DEF_BAD_VALUE@3:13',
    ]);
    expect(watcher!.current().hash).toBe(initial.hash);
    await writeFile(join(home, 'agents', 'a.md'), persona('fixed'));
    await rec.next('reloaded');
    expect(watcher!.current().get('persona', 'a')?.data.description).toBe('fixed');
  });

  it('handles additions, deletions and renames', async () => {
    const { repo, rec } = await start();
    const dir = join(repo, '.neo', 'personas');
    await writeFile(join(dir, 'new.md'), persona('added'));
    expect((await rec.next('reloaded')).diff.added).toEqual([{ kind: 'persona', id: 'new' }]);
    await rename(join(dir, 'new.md'), join(dir, 'renamed.md'));
    const renamed = await rec.next('reloaded');
    expect(renamed.diff.added).toEqual([{ kind: 'persona', id: 'renamed' }]);
    expect(renamed.diff.removed).toEqual([{ kind: 'persona', id: 'new' }]);
    await rm(join(dir, 'renamed.md'));
    expect((await rec.next('reloaded')).diff.removed).toEqual([{ kind: 'persona', id: 'renamed' }]);
  });

  it('turns an atomic save (temp file + rename) and a burst of saves into one reload', async () => {
    const { home, rec } = await start();
    const file = join(home, 'agents', 'a.md');
    const temp = join(home, 'agents', '.a.md.swp');
    // An editor's save: write a temp file, rename it over the original, then save again quickly.
    writeFileSync(temp, persona('atomic'));
    renameSync(temp, file);
    for (let i = 0; i < 5; i++) writeFileSync(file, persona(`burst ${i}`));
    const event = await rec.next('reloaded');
    expect(event.files).toEqual([file]);
    expect(watcher!.current().get('persona', 'a')?.data.description).toBe('burst 4');
    // Past chokidar's 50 ms change window and the watcher's settle check: still one reload.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rec.events.filter((e) => e.type === 'reloaded')).toEqual([]);
  });

  it('survives a symlink loop in a watched folder', async () => {
    const { home, rec } = await start();
    await symlink(join(home, 'agents'), join(home, 'agents', 'loop'));
    await writeFile(join(home, 'agents', 'b.md'), persona('after loop'));
    const event = await rec.next('reloaded');
    expect(event.diff.added).toEqual([{ kind: 'persona', id: 'b' }]);
  });
});
