import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../../engine/execution/index.js';
import { harness, SECRET, type Harness } from '../../fixtures/agent/neo-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return true;
}

describe('stopping a neo session', () => {
  it('kills every background shell and what it started', async () => {
    h = await harness(
      {
        turns: [
          {
            tools: [
              {
                name: 'exec',
                arguments: { command: 'sleep 300 & echo $! > child.pid; sleep 300', run_in_background: true },
              },
              {
                name: 'exec',
                arguments: { command: 'trap "" TERM; while true; do sleep 1; done', run_in_background: true },
              },
            ],
          },
          { text: 'servers started' },
        ],
      },
      { posture: 'full' },
    );
    const reader = await h.start();
    const events = await reader.until('turn_complete');
    const pids = events.flatMap((e) => (e.type === 'tool_result' ? [Number(/\(pid (\d+)\)/.exec(e.output)?.[1])] : []));
    expect(pids).toHaveLength(2);
    let child = Number.NaN;
    for (let i = 0; i < 200 && Number.isNaN(child); i++) {
      child = Number(await readFile(join(h.repo, 'child.pid'), 'utf8').catch(() => 'NaN'));
      if (Number.isNaN(child)) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pids.every(groupAlive)).toBe(true);
    expect(alive(child)).toBe(true);
    await reader.session.stop();
    expect(await reader.rest()).toEqual([]);
    expect(pids.map(groupAlive)).toEqual([false, false]);
    expect(groupAlive(child)).toBe(false);
    // stop is idempotent, and the session refuses further work.
    await reader.session.stop();
    await expect(reader.session.sendGuidance('more')).rejects.toMatchObject({ code: 'TRANSPORT_SESSION_CLOSED' });
  });
});

describe('secrets', () => {
  it('a key given as ${ENV} never appears in an event or in any file under NEO_HOME', async () => {
    h = await harness(
      {
        turns: [
          {
            tools: [
              { name: 'exec', arguments: { command: 'echo "key=${NEO_TEST_SECRET:-unset}"' } },
              { name: 'read_file', arguments: { path: 'leak.env' } },
              {
                name: 'exec',
                arguments: { command: 'echo bg=$NEO_TEST_SECRET; cat leak.env', run_in_background: true },
              },
            ],
          },
          { tools: [{ name: 'bash_output', arguments: { shell_id: 'sh_1' } }] },
          { text: `I saw the key ${SECRET} in the file.` },
          { error: { status: 401, message: `invalid key ${SECRET}` } },
        ],
      },
      { posture: 'full', files: { 'leak.env': `TOKEN=${SECRET}\n` } },
    );
    const reader = await h.start();
    await reader.until('turn_complete');
    await reader.session.sendGuidance('again');
    await reader.until('error');
    await reader.session.stop();
    await reader.rest();

    // The key was really expanded and sent (this header is not redacted by the server's log).
    expect(h.server.requests[0]!.headers['x-probe']).toBe(`probe-${SECRET}`);
    // Commands never see it; tool output that contains it is redacted before it is kept.
    const outputs = reader.all.flatMap((e) => (e.type === 'tool_result' ? [e.output] : []));
    expect(outputs[0]).toBe('key=unset');
    expect(outputs[1]).toBe('1\tTOKEN=[redacted ${NEO_TEST_SECRET}]');
    // The background shell's output (read while it may still run) never shows the key either.
    expect(outputs[3]).toMatch(/^\[sh_1 (running|exited \(code 0\))\]/);
    expect(JSON.stringify(reader.all)).not.toContain(SECRET);
    expect(JSON.stringify(reader.all)).toContain('[redacted ${NEO_TEST_SECRET}]');

    const files = await filesUnder(h.home);
    expect(files.some((f) => f.endsWith('agent-transcript.json'))).toBe(true);
    // Shell logs (raw command output) are never kept under NEO_HOME.
    expect(files.filter((f) => f.endsWith('.log'))).toEqual([]);
    for (const file of files) {
      if ((await stat(file)).size > 10 * 1024 * 1024) continue;
      const text = await readFile(file, 'utf8');
      if (file.endsWith('neo.yaml')) continue;
      expect({ file, leaked: text.includes(SECRET) }).toEqual({ file, leaked: false });
    }
  });
});
