import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditJournal, builtinTools, BackgroundShells } from '../../../engine/agent/index.js';

const signal = new AbortController().signal;

async function setup() {
  const cwd = await mkdtemp(join(tmpdir(), 'neo-journal-'));
  const shells = new BackgroundShells(await mkdtemp(join(tmpdir(), 'neo-journal-shells-')), { removeDir: true });
  const journal = new EditJournal(cwd);
  const tools = builtinTools({ cwd, env: {}, shells, execTimeoutMs: 1000, ripgrep: null }).map((t) => journal.track(t));
  const tool = (name: string) => tools.find((t) => t.spec.name === name)!;
  return { cwd, journal, tool };
}

describe('the edit journal', () => {
  it('undoes the last turn with writes, newest first, byte for byte; then the one before', async () => {
    const { cwd, journal, tool } = await setup();
    const original = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x62]);
    await writeFile(join(cwd, 'f.txt'), original);
    journal.beginTurn();
    await tool('write_file').run({ path: 'f.txt', content: 'one\n' }, { signal });
    journal.beginTurn();
    await tool('edit').run({ path: 'f.txt', old_string: 'one', new_string: 'two' }, { signal });
    await tool('write_file').run({ path: 'new.txt', content: 'n' }, { signal });
    journal.beginTurn(); // a turn that only reads
    expect(await journal.undo()).toEqual({ turn: 2, restored: ['new.txt', 'f.txt'] });
    expect(await readFile(join(cwd, 'f.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(cwd, 'new.txt'))).toBe(false);
    expect(await journal.undo()).toEqual({ turn: 1, restored: ['f.txt'] });
    expect((await readFile(join(cwd, 'f.txt'))).equals(original)).toBe(true);
    await expect(journal.undo()).rejects.toMatchObject({ code: 'AGENT_UNDO_NOTHING' });
  });

  it('refuses, changing nothing, when a file changed since the agent wrote it', async () => {
    const { cwd, journal, tool } = await setup();
    journal.beginTurn();
    await tool('write_file').run({ path: 'a.txt', content: 'a' }, { signal });
    await tool('write_file').run({ path: 'b.txt', content: 'b' }, { signal });
    await writeFile(join(cwd, 'b.txt'), 'by hand');
    await expect(journal.undo()).rejects.toMatchObject({
      code: 'AGENT_UNDO_CONFLICT',
      message: expect.stringContaining('b.txt changed'),
    });
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('a');
  });
});
