/**
 * Why a run failed is in front of the user, not only `exit 127`: a failed gate's last lines
 * (redacted, capped) in the summary, `neo flow show` and `neo flow logs`, a failed command's
 * stderr too, and every error's hint — `--json`'s included.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const SECRET = 'zq-s3cret-value-4711';
// 40 lines of noise, then the secret, then the real reason: only the last lines are shown.
const GATE = `for i in $(seq 1 40); do echo noise $i; done; echo "token ${SECRET}"; uvu tests`;

// A runner that prints its failure first and its summary last (uvu, jest, vitest, mocha).
const SUMMARY_LAST =
  'echo " FAIL  sum  adds"; echo "    Expected 5, got -1"; for i in $(seq 1 30); do echo "ok $i"; done; echo "  Total: 31"; echo "  Passed: 30"; exit 1';

async function project() {
  const root = await tempDir('neo-e2e-reason-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, {
    'README.md': 'hello\n',
    'writes.yaml': 'turns:\n  - - write: { path: note.txt, content: "a note\\n" }\n',
    'gate.flow.yaml': `name: gate\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nsteps:\n  - id: fix\n    brief: write a note\n    script: writes.yaml\n    verify: { run: ${JSON.stringify(GATE)}, attempts: 1 }\n`,
    'summary-last.flow.yaml': `name: summary-last\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nsteps:\n  - id: fix\n    brief: write a note\n    script: writes.yaml\n    verify: { run: ${JSON.stringify(SUMMARY_LAST)}, attempts: 1 }\n`,
    'command.flow.yaml': `name: command\nsandbox: bwrap\nsteps:\n  - { id: build, run: 'echo compiling; echo "src/a.c:3: error: expected ;" >&2; echo "1 error" >&2; exit 2' }\n`,
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[], env: Record<string, string> = {}) =>
    runNeo(args, { cwd: repo, env: { NEO_HOME: home, ...env } });
  return { neo };
}

const runIdOf = (stdout: string) => /run (\S+) · flow /.exec(stdout)![1]!;

describe('the reason for a failure, where the user looks', () => {
  it("a failed gate's last lines, redacted, in the summary, flow show and flow logs", async () => {
    const { neo } = await project();
    const run = await neo(['flow', 'run', 'gate.flow.yaml'], { MY_API_TOKEN: SECRET });
    expect(run.exitCode).toBe(3);
    const runId = runIdOf(run.stdout);
    for (const [what, out] of [
      ['summary', run.stdout],
      ['show', (await neo(['flow', 'show', runId])).stdout],
      ['logs', (await neo(['flow', 'logs', runId])).stdout],
    ] as const) {
      expect(out, what).toContain('uvu: not found');
      expect(out, what).toContain('noise 40');
      expect(out, what).not.toContain('noise 20');
      expect(out, what).not.toContain(SECRET);
      expect(out, what).toContain('[redacted ${MY_API_TOKEN}]');
    }
    expect(run.stdout).toMatch(/gate `.*` \(exit 127\), last 12 lines of 42:\n\s+│ noise 31\n/);
  });

  it('a runner that prints its summary last: its first failure above the last lines', async () => {
    const { neo } = await project();
    const run = await neo(['flow', 'run', 'summary-last.flow.yaml']);
    expect(run.exitCode).toBe(3);
    for (const [what, out] of [
      ['summary', run.stdout],
      ['show', (await neo(['flow', 'show', runIdOf(run.stdout)])).stdout],
    ] as const) {
      expect(out, what).toMatch(
        /its first failure and last lines, 11 lines of 34:\n\s+│ {2}FAIL {2}sum {2}adds\n\s+│ {5}Expected 5, got -1\n/,
      );
      expect(out, what).toMatch(/│ …\n(?:.*\n){4}.*│ {3}Passed: 30/);
    }
  });

  it("a failed command's stderr, under its error", async () => {
    const { neo } = await project();
    const run = await neo(['flow', 'run', 'command.flow.yaml']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/stderr, 2 lines:\n\s+│ src\/a\.c:3: error: expected ;\n\s+│ 1 error/);
    const show = await neo(['flow', 'show', runIdOf(run.stdout)]);
    expect(show.stdout).toContain('│ src/a.c:3: error: expected ;');
  });

  it("--json's error line carries the hint the terminal shows (SANDBOX_UNAVAILABLE: how to install bwrap)", async () => {
    const { neo } = await project();
    const result = await neo(['flow', 'run', 'command.flow.yaml', '--json'], { PATH: '/nonexistent' });
    expect(result.exitCode).toBe(7);
    const line = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { cause: string; hint?: string };
    expect(line.cause).toBe('SANDBOX_UNAVAILABLE');
    expect(line.hint).toMatch(/apt-get install bubblewrap/);
    expect(result.stderr).toContain(`hint: ${line.hint}`);
  });
});
