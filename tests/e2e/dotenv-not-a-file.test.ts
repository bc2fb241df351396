/**
 * A trusted project's `.neo/.env` is read when a run (or a resume, or a `neo agent` session)
 * starts, and in `inplace` isolation a confined step can write it. A FIFO planted there made every
 * later start of neo in that project wait for a writer that never came (and a first Ctrl-C only
 * said "interrupting…"); a link to /dev/zero read without end. A `.env` that is not a regular
 * file, or is larger than any `.env` is, is now refused at once, naming the file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';

/** A trusted project whose confined first step, the first time round, runs `plant` and fails. */
async function plantingRun(plant: string) {
  const root = await tempDir('neo-e2e-dotenv-file-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, {
    'README.md': 'hello\n',
    '.neo/.env': 'NEO_TEST_KEY=sk-at-start\n',
    'main.flow.yaml': [
      'name: main',
      'sandbox: bwrap',
      'workspace: { isolation: inplace }',
      'steps:',
      // Unconfined: an inplace run's confined steps cannot write .neo/ (tests/e2e/inplace-project-layer).
      `  - { id: a, sandbox: none, run: 'if [ -f marker ]; then exit 0; fi; touch marker; rm -f .neo/.env; ${plant}; exit 1' }`,
      '  - { id: b, needs: [a], run: echo done }',
      '',
    ].join('\n'),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', 'README.md', 'main.flow.yaml');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root }, timeout: 30_000 });
  expect((await neo(['trust'])).exitCode).toBe(0);
  const first = await neo(['flow', 'run', 'main.flow.yaml']);
  expect(first.exitCode, first.stdout + first.stderr).toBe(1);
  return { neo, runId: await onlyRunId(home) };
}

function expectRefused(result: Awaited<ReturnType<typeof runNeo>>, what: string): void {
  expect(result.exitCode, result.stdout + result.stderr).toBe(2);
  expect(result.stderr).toContain('AGENT_DOTENV_NOT_A_FILE');
  expect(result.stderr).toContain(join('.neo', '.env'));
  expect(result.stderr).toContain(what);
}

describe('a project .env that is not a regular file', () => {
  it('a FIFO a confined step planted is refused at once by a resume and by the next run, not waited on', async () => {
    const { neo, runId } = await plantingRun('mkfifo .neo/.env');
    expectRefused(await neo(['flow', 'resume', runId]), 'FIFO');
    expectRefused(await neo(['flow', 'run', 'main.flow.yaml']), 'FIFO');
  });

  it('a link to /dev/zero a confined step planted is refused, not read without end', async () => {
    const { neo } = await plantingRun('ln -s /dev/zero .neo/.env');
    expectRefused(await neo(['flow', 'run', 'main.flow.yaml']), 'a character device');
  });
});
