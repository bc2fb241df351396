/**
 * A resumed step does not record its decisions twice. The step's gate refuses the agent's first
 * fix (a decision), the agent's second turn blocks, neo is killed with -9; `neo flow resume` runs
 * the interrupted execution again (same attempt), whose gate refuses the same first fix again:
 * the store keeps one refusal for that run, step and attempt, and one success.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, spawnNeo, waitForOutput } from './flow-helpers.js';

const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), 5);\n";
const FLOW = `name: resumed
defaults: { backend: script, maxPosture: full }
steps:
  - id: fix
    brief: make the test pass by fixing sum.js
    script: fix.yaml
    posture: full
    verify: { run: node test/sum.test.js, attempts: 2 }
`;
const FIX = `turns:
  - - write: { path: sum.js, content: "module.exports = (a, b) => a * b;\\n" }
    - say: Done, multiplication it is.
  - - write: { path: sum.js, content: "module.exports = (a, b) => a + b;\\n" }
    - run: { command: "if [ ! -e .once ]; then touch .once; exec sleep 300; fi" }
    - say: Fixed for real.
`;

describe('a resumed step and the decision store', () => {
  it('records a step’s decisions once across kill -9 and neo flow resume', async () => {
    const root = await tempDir('neo-e2e-memory-resume-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      'sum.js': 'module.exports = (a, b) => a - b;\n',
      'test/sum.test.js': TEST,
      'plan.yaml': FLOW,
      'fix.yaml': FIX,
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: home };

    const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, home });
    const runId = (await waitForOutput(child, /^run (\S+) · flow resumed/m))[1]!;
    // The workspace's .once: the agent's second turn is blocked in its command.
    const record = join(home, 'runs', runId, 'run.json');
    for (;;) {
      const workspace = await readFile(record, 'utf8')
        .then((text) => (JSON.parse(text) as { workspace?: { path: string } }).workspace?.path)
        .catch(() => undefined);
      if (workspace !== undefined && (await readFile(join(workspace, '.once')).catch(() => undefined)) !== undefined)
        break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGKILL');
    await child;

    const before = await runNeo(['memory', 'decisions', '--run', runId, '--json'], { cwd: repo, env });
    const kinds = (out: string) =>
      (JSON.parse(out) as { decisions: Array<{ kind: string }> }).decisions.map((d) => d.kind);
    expect(kinds(before.stdout)).toEqual(['gate-refused']);

    const resumed = await runNeo(['flow', 'resume', runId, '--json'], { cwd: repo, env });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    const after = await runNeo(['memory', 'decisions', '--run', runId, '--json'], { cwd: repo, env });
    expect(kinds(after.stdout)).toEqual(['step-succeeded', 'gate-refused']);
  });
});
