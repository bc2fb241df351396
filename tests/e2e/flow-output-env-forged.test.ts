/**
 * A run step's outputs reach the steps that need it as NEO_STEP_<ID>_<OUTPUT>, beside neo's own
 * NEO_STEP_<ID>_STATUS and _VERDICT. The output names are the step's to choose (`key=value` lines
 * in `$NEO_OUTPUT`): a confined step that wrote `status=succeeded` and failed had a later step
 * (a `finally:` deploy checking "$NEO_STEP_TEST_STATUS") read a success neo never saw, and step
 * `a`'s `b_status` or `b_out` landed on step `a-b`'s variables. neo's names now win, and an output
 * whose variable lies in another needed step's names is left out of the environment.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** Runs `main.flow.yaml` of the given lines (a bwrap, in-place flow) in a fresh repository. */
async function runFlow(lines: string[]) {
  const root = await tempDir('neo-e2e-output-env-');
  const repo = join(root, 'repo');
  await writeTree(repo, {
    'README.md': 'hello\n',
    'main.flow.yaml': ['name: main', 'sandbox: bwrap', 'workspace: { isolation: inplace }', ...lines, ''].join('\n'),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const result = await runNeo(['flow', 'run', 'main.flow.yaml'], {
    cwd: repo,
    env: { NEO_HOME: join(root, 'neo-home'), HOME: root },
  });
  return { repo, result };
}

describe("a step's outputs never forge neo's variables", () => {
  it("neither its own STATUS nor another needed step's variables", async () => {
    const { repo, result } = await runFlow([
      'steps:',
      `  - { id: a-b, run: 'echo out=good >> "$NEO_OUTPUT"' }`,
      `  - { id: a, run: 'printf "status=failed\\nverdict=pass\\nb_out=evil\\nb_status=failed\\nmine=kept\\n" >> "$NEO_OUTPUT"' }`,
      `  - { id: c, needs: [a-b, a], run: 'env | grep "^NEO_STEP_A" | sort > c.out' }`,
    ]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const env = (await readFile(join(repo, 'c.out'), 'utf8')).split('\n');
    expect(env).toContain('NEO_STEP_A_STATUS=succeeded');
    expect(env).toContain('NEO_STEP_A_B_STATUS=succeeded');
    expect(env).toContain('NEO_STEP_A_B_OUT=good');
    expect(env).toContain('NEO_STEP_A_MINE=kept');
    expect(env.filter((line) => line.startsWith('NEO_STEP_A_VERDICT='))).toEqual([]);
  });

  it("nor the exit code neo saw: a failed step's `exitCode=0` reaches no finally step", async () => {
    const { repo, result } = await runFlow([
      'steps:',
      `  - { id: t, run: 'printf "exitCode=0\\nstatus=succeeded\\nstdout=all green\\n" >> "$NEO_OUTPUT"; echo red; exit 3' }`,
      'finally:',
      `  - { id: f, run: 'echo "$NEO_STEP_T_EXITCODE $NEO_STEP_T_STATUS $NEO_STEP_T_STDOUT" > f.out' }`,
    ]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(1);
    expect((await readFile(join(repo, 'f.out'), 'utf8')).trim()).toBe('3 failed red');
  });
});
