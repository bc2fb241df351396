/**
 * `neo db up | status | down` through the binary: the embedded PostgreSQL starts on 127.0.0.1
 * (as nobody under root), a second `up` leaves it running, `down` stops it and keeps the data,
 * `up` on the existing cluster starts it as it is (initdb would refuse the folder) with the
 * same credentials, and `down --purge` removes it.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freePort, query } from './dbos-helpers.js';

it('db up, up again, status, down, up on the existing cluster, down --purge', { timeout: 180_000 }, async () => {
  const dir = await tempDir('neo-db-');
  await chmod(dir, 0o711);
  const env = { NEO_HOME: join(dir, 'home') };
  const port = await freePort();
  const data = join(dir, 'data');
  try {
    const up = await runNeo(['db', 'up', '--port', String(port), '--data-dir', data], { env, timeout: 120_000 });
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    expect(up.stdout).toContain(`started: PostgreSQL on 127.0.0.1:${port}`);
    const { url } = JSON.parse(await readFile(join(dir, 'home', 'db', 'db.json'), 'utf8')) as { url: string };
    expect(up.stdout).not.toContain(new URL(url).password);
    expect(await query<{ ok: number }>(url, 'SELECT 1 AS ok')).toEqual([{ ok: 1 }]);

    const again = await runNeo(['db', 'up'], { env });
    expect(again.stdout).toContain('already running');
    const status = await runNeo(['db', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running', port, dataDir: data });

    expect((await runNeo(['db', 'down'], { env })).stdout).toContain(`stopped: PostgreSQL in ${data}`);
    expect(JSON.parse((await runNeo(['db', 'status', '--json'], { env })).stdout)).toMatchObject({ state: 'stopped' });
    await expect(query(url, 'SELECT 1')).rejects.toThrow();

    const restarted = await runNeo(['db', 'up'], { env, timeout: 120_000 });
    expect(restarted.stdout).toContain(`started: PostgreSQL on 127.0.0.1:${port}`);
    expect(await query<{ ok: number }>(url, 'SELECT 1 AS ok')).toEqual([{ ok: 1 }]);

    // The first client on a fresh database migrates DBOS's schema; its progress line goes to
    // stderr, so `--json`'s stdout stays one JSON object per line.
    const plan = join(dir, 'plan.yaml');
    await writeFile(plan, 'name: x\nsteps:\n  - { id: a, run: "true" }\n');
    const enqueued = await runNeo(['flow', 'run', plan, '--engine', 'dbos', '--detach', '--json'], { env, cwd: dir });
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const lines = enqueued.stdout.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as { type: string })).toMatchObject([{ type: 'enqueued' }]);
  } finally {
    const down = await runNeo(['db', 'down', '--purge'], { env });
    expect(down.exitCode).toBe(0);
  }
  expect(JSON.parse((await runNeo(['db', 'status', '--json'], { env })).stdout)).toEqual({ state: 'none' });
});
