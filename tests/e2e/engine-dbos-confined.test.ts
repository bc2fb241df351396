/**
 * The dbos engine's database is out of a confined step's reach: a worker holding the database
 * URL in NEO_DATABASE_URL, its NEO_HOME holding `neo db up`'s record (db/db.json, with the
 * password), runs a step under bwrap that dumps its environment and tries to read that record.
 * Neither the URL nor the password reaches anything the step can see or write.
 */
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freshDatabase, runRow, waitFor, useDbos } from './dbos-helpers.js';
import { waitForOutput } from './flow-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

it('a sandboxed step sees neither NEO_DATABASE_URL nor the password in NEO_HOME/db/db.json', async () => {
  const url = await freshDatabase(dbos.db);
  const password = decodeURIComponent(new URL(url).password);
  expect(password.length).toBeGreaterThan(8);
  const record = join(dbos.db.home, 'db', 'db.json');
  expect(await readFile(record, 'utf8')).toContain(password);
  const dir = await tempDir('neo-dbos-confined-');
  await writeFile(
    join(dir, 'plan.yaml'),
    `name: probe
workspace: { isolation: inplace }
sandbox: bwrap
steps:
  - id: look
    run: env > env.txt; cat ${record} > record.txt 2>&1; ls -la ${join(dbos.db.home, 'db')} >> record.txt 2>&1; true
`,
  );
  // The worker runs in the home `neo db up` wrote its record in, with the URL in its environment too.
  const child = execa(process.execPath, [NEO_BIN, 'worker', '--executor-id', 'wc', '--concurrency', '1'], {
    env: { NO_COLOR: '1', NEO_HOME: dbos.db.home, NEO_DATABASE_URL: url },
    reject: false,
    stdin: 'ignore',
  });
  workers.push({ id: 'wc', home: dbos.db.home, child });
  await waitForOutput(child, /worker \S+ ready/, 'stderr');
  const run = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
    {
      cwd: dir,
      env: { NEO_HOME: join(dir, '.client-home') },
    },
  );
  expect(run.exitCode).toBe(0);
  const runId = (JSON.parse(run.stdout.split('\n')[0]!) as { runId: string }).runId;
  const done = await waitFor('the run to finish', async () => {
    const row = await runRow(url, runId);
    return row !== undefined && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
  });
  expect(done.status).toBe('succeeded');
  const env = await readFile(join(dir, 'env.txt'), 'utf8');
  expect(env).toMatch(/PATH=/); // the step did run and dump its environment
  expect(env).not.toContain('NEO_DATABASE_URL');
  expect(env).not.toContain(password);
  const seen = await readFile(join(dir, 'record.txt'), 'utf8');
  expect(seen).toMatch(/No such file or directory|Permission denied/);
  expect(seen).not.toContain(password);
});
