/**
 * A gate's verdict is the truth of its step: when the agent cannot go on after a failed gate (a
 * script with no turn left, an agent CLI that errors), the step fails as the gate failed
 * (FLOW_GATE_FAILED, exit 3) with the gate's reason and last lines, not as an agent error.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const FLOW = `name: fix
defaults: { backend: script, maxPosture: acceptEdits }
steps:
  - id: fix
    brief: make the check pass
    script: one-turn.yaml
    verify: { run: "echo 'expected 5, got -1' >&2; exit 1", attempts: 3 }
`;

describe('a one-turn script whose gate fails', () => {
  it('fails the step with the gate: FLOW_GATE_FAILED, exit 3, the gate’s last lines', async () => {
    const root = await tempDir('neo-e2e-gate-truth-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'fix.flow.yaml': FLOW,
      'one-turn.yaml': 'turns:\n  - - write: { path: calc.txt, content: "a - b\\n" }\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: join(root, 'home') };
    const run = await runNeo(['flow', 'run', 'fix.flow.yaml'], { cwd: repo, env });
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).toMatch(/FLOW_GATE_FAILED/);
    expect(run.stdout).not.toMatch(/FLOW_AGENT_ERROR/);
    expect(run.stdout).toContain(
      "FLOW_GATE_FAILED: the check `echo 'expected 5, got -1' >&2; exit 1` fails (exit 1); then the agent failed: the script has no turn left (all 1 played)",
    );
    expect(run.stdout).toMatch(/│ expected 5, got -1/);
    const runId = /^run (\S+)/.exec(run.stdout)![1]!;
    const shown = await runNeo(['flow', 'show', runId], { cwd: repo, env });
    expect(shown.stdout).toMatch(
      /reason: FLOW_STEP_FAILED: step `fix` failed: the check .* fails \(exit 1\); then the agent failed: the script has no turn left \(all 1 played\) \(FLOW_GATE_FAILED\)/,
    );
    expect(shown.stdout).toMatch(/│ expected 5, got -1/);
  });
});
