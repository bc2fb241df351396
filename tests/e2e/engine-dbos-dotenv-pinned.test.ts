/**
 * A dbos run taken over by another worker reads the project's `.neo/.env` again at that start: in
 * `inplace` isolation it lies in the checkout a confined step writes, so a step that rewrote it and
 * then lost its worker had the survivor expand the provider's `${NAME}` references (an API key, a
 * header, a route) from what the step wrote. The takeover now checks the `.env` it reads against
 * what the run's first start read (the plan pin), as a resume checks its run record's pin.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { detachedRunAt, freshDatabase, killOwner, runEnded, startTwoWorkers, useDbos } from './dbos-helpers.js';
import { commitAll } from '../helpers/git.js';

const dbos = useDbos();
const { workers } = dbos;
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const worker of workers) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: worker.home } });
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Runs the plan on two workers, kills the owner in step two; step one rewrites `.neo/.env` when `plant`. */
async function takeover(plant: boolean) {
  const server = await startModelServer({ script: { turns: [{ text: 'hello' }] as never } });
  servers.push(server);
  const url = await freshDatabase(dbos.db);
  const root = await tempDir('neo-dbos-dotenv-pinned-');
  const repo = join(root, 'repo');
  await writeTree(repo, {
    'README.md': 'hello\n',
    '.gitignore': '.neo/.env\n',
    '.neo/.env': 'NEO_TEST_ROUTE=as-started\n',
    'plan.yaml': [
      'name: pinned',
      'sandbox: bwrap',
      'workspace: { isolation: inplace }',
      'steps:',
      // Unconfined: an inplace run's confined steps cannot write .neo/ (tests/e2e/inplace-project-layer); the pin is for any writer.
      plant
        ? `  - { id: one, sandbox: none, run: "echo NEO_TEST_ROUTE=planted > .neo/.env" }`
        : '  - { id: one, run: "true" }',
      '  - { id: two, needs: [one], run: "if [ ! -e in-two ]; then touch in-two; sleep 60; fi" }',
      '  - { id: three, needs: [two], backend: neo, brief: say hi, requireChange: false }',
      '',
    ].join('\n'),
  });
  await commitAll(repo);
  const files = {
    'neo.yaml': `providers:\n  scripted:\n    api: anthropic\n    baseUrl: ${server.url}\n    apiKey: \${NEO_TEST_KEY}\n    headers:\n      x-neo-route: \${NEO_TEST_ROUTE}\nagent:\n  provider: scripted\n  model: scripted-model\n`,
    '.env': 'NEO_TEST_KEY=sk-user-secret\n',
  };
  workers.push(...(await startTwoWorkers(url, root, { files, trust: repo })));
  const runId = await detachedRunAt(url, repo, join(root, 'client'), 'in-two');

  await killOwner(url, runId, workers);
  const routes = () => server.requests.map((r) => r.headers['x-neo-route']);
  return { url, root, runId, routes, done: await runEnded(url, runId) };
}

describe("dbos engine: a takeover keeps the project's .env the run started with", () => {
  it('never expands a provider reference from a .env a confined step wrote before its worker died', async () => {
    const { url, root, runId, routes, done } = await takeover(true);
    expect(routes()).not.toContain('planted');
    expect(done.status).toBe('failed');
    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: join(root, 'client') },
    });
    expect(show.stdout).toContain('FLOW_DEFINITIONS_CHANGED');
    expect(show.stdout).toContain(join('.neo', '.env'));
  });

  it('a takeover of a run whose .env is as it started runs on, with its variables', async () => {
    const { routes, done } = await takeover(false);
    expect(done.status).toBe('succeeded');
    expect(routes()).toContain('as-started');
  });
});
