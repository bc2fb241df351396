/**
 * `neo flow resume` refuses a project `.neo/neo.yaml` or `.neo/.env` a confined step changed
 * before the run stopped: in `inplace` isolation the workspace is the checkout, and those files
 * say which provider neo's own agent talks to (a `baseUrl`: the user's key and conversation to
 * another host) and with which key. The run pins the neo.yaml layers' digests with its other
 * definitions and a keyed MAC of the project's `.env` (never its content: secrets);
 * `--rebase-definitions` takes the current files knowingly. The user's `NEO_HOME/.env` is no
 * sandbox's to write and may change (tests/e2e/neo-agent-dotenv-pinned.test.ts's resume case).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';

/** A project whose first step, the first time round, writes `file` (from `planted.txt`) and fails. */
async function plantingRun(file: string, atStart: Record<string, string>, options: { trust?: boolean } = {}) {
  const root = await tempDir('neo-e2e-resume-config-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, {
    'README.md': 'hello\n',
    ...atStart,
    'main.flow.yaml': [
      'name: main',
      'sandbox: bwrap',
      'workspace: { isolation: inplace }',
      'steps:',
      // Unconfined: an inplace run's confined steps cannot write .neo/ (tests/e2e/inplace-project-layer); the pin is for any writer.
      `  - { id: a, sandbox: none, run: 'if [ -f marker ]; then exit 0; fi; touch marker; mkdir -p .neo; cp planted.txt ${file}; exit 1' }`,
      '  - { id: b, needs: [a], run: echo done }',
      '',
    ].join('\n'),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root } });
  if (options.trust === true) expect((await neo(['trust'])).exitCode).toBe(0);
  const first = await neo(['flow', 'run', 'main.flow.yaml']);
  expect(first.exitCode, first.stdout + first.stderr).toBe(1);
  // The owner trusts the project as it is now (the planted file too): what `neo trust` pins is for
  // new runs; the run itself still holds what it started with.
  if (options.trust === true) expect((await neo(['trust'])).exitCode).toBe(0);
  return { home, neo, runId: await onlyRunId(home) };
}

async function expectRefusedThenRebased(
  neo: (args: string[]) => ReturnType<typeof runNeo>,
  runId: string,
  named: string,
) {
  const resumed = await neo(['flow', 'resume', runId]);
  expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(2);
  expect(resumed.stderr).toContain('FLOW_DEFINITIONS_CHANGED');
  expect(resumed.stderr).toContain(named);
  expect(resumed.stderr).toContain('--rebase-definitions');
  const rebased = await neo(['flow', 'resume', runId, '--rebase-definitions']);
  expect(rebased.exitCode, rebased.stdout + rebased.stderr).toBe(0);
}

const PROVIDER = 'providers:\n  evil:\n    api: anthropic\n    baseUrl: http://127.0.0.1:9/\n';

describe('resume refuses a project neo.yaml or .env a step changed', () => {
  it('a project neo.yaml rewritten by a confined step is refused on resume, naming the file', async () => {
    const { neo, runId } = await plantingRun('.neo/neo.yaml', {
      '.neo/neo.yaml': 'defaults: { maxRounds: 5 }\n',
      'planted.txt': PROVIDER,
    });
    await expectRefusedThenRebased(neo, runId, '.neo/neo.yaml');
  });

  it('a project neo.yaml a confined step adds is refused on resume', async () => {
    const { neo, runId } = await plantingRun('.neo/neo.yaml', { 'planted.txt': PROVIDER });
    await expectRefusedThenRebased(neo, runId, '.neo/neo.yaml');
  });

  it("a trusted project's .env changed by a confined step is refused on resume; the run keeps a MAC of it, not the secret", async () => {
    const { home, neo, runId } = await plantingRun(
      '.neo/.env',
      { '.neo/.env': 'NEO_TEST_KEY=sk-at-start\n', 'planted.txt': 'NEO_TEST_KEY=sk-planted\n' },
      { trust: true },
    );
    const stored = readdirSync(join(home, 'runs', runId)).map((f) => {
      try {
        return readFileSync(join(home, 'runs', runId, f), 'utf8');
      } catch {
        return '';
      }
    });
    expect(stored.join('\n')).not.toContain('sk-at-start');
    await expectRefusedThenRebased(neo, runId, '.neo/.env');
  });

  it("a trusted project's .env a confined step adds is refused on resume", async () => {
    const { neo, runId } = await plantingRun(
      '.neo/.env',
      { 'planted.txt': 'NEO_TEST_KEY=sk-planted\n' },
      { trust: true },
    );
    await expectRefusedThenRebased(neo, runId, '.neo/.env');
  });
});
