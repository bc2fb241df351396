/** A reader that goes away never stops a run: `neo flow run --json | head -1`. */
import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents } from './flow-helpers.js';

describe('a closed stdout', () => {
  it('the run goes on to its end and its record is written; neo does not die of EPIPE', async () => {
    const root = await tempDir('neo-epipe-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    await writeTree(dir, {
      'plan.yaml':
        "name: p\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: 'echo a' }\n  - { id: b, run: 'sleep 0.3; echo b > b.txt', needs: [a] }\n",
    });
    const child = execa(process.execPath, [NEO_BIN, 'flow', 'run', 'plan.yaml', '--json'], {
      cwd: dir,
      env: { NO_COLOR: '1', NEO_HOME: home },
      reject: false,
      buffer: { stdout: false },
    });
    // Read one line, then hang up, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stdout!.destroy();
    const result = await child;
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'b.txt'), 'utf8')).toBe('b\n');
    const runId = await onlyRunId(home);
    const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8'));
    expect(record.status).toBe('succeeded');
    const events = await readEvents(home, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'succeeded' });
  });
});
