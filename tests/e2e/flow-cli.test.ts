import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../contract/processes.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents, spawnNeo, waitForOutput } from './flow-helpers.js';

async function folder(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-cli-');
  await writeTree(join(root, 'p'), files);
  return { dir: join(root, 'p'), home: join(root, 'home') };
}

const GOOD = `name: two
inputs: { n: { type: number, default: 2 } }
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 5 }
steps:
  - { id: build, run: 'echo built' }
  - { id: fix, brief: "fix \${{ inputs.n }}", needs: [build], verify: { run: npm test, attempts: 2 }, maxRounds: 3 }
finally:
  - { id: report, run: 'echo done' }
`;

describe('neo flow: validate, graph, dry-run, list, show, exit codes', () => {
  it('validate points at the line and column of a step that widens the flow, or a ${{ }} in a command', async () => {
    const { dir, home } = await folder({
      'plan.yaml': `name: bad
defaults: { maxPosture: default }
steps:
  - { id: a, brief: go, backend: script, posture: full }
  - { id: b, run: 'echo \${{ inputs.x }}' }
`,
    });
    const result = await runNeo(['flow', 'validate', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'plan.yaml:4:51: error[DEF_STEP_WIDENS]: step `a`: posture `full` is above its ceiling `default`',
    );
    expect(result.stderr).toContain('plan.yaml:5:19: error[DEF_EXPR_IN_RUN]: `${{ }}` is not allowed in `run:`');
    const run = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('error[FLOW_PLAN_INVALID]');
  });

  it('validate, graph and --dry-run describe a good plan without running anything', async () => {
    const { dir, home } = await folder({ 'plan.yaml': GOOD });
    expect((await runNeo(['flow', 'validate', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } })).stdout).toBe(
      '✓ flow two: 3 steps valid',
    );
    const mermaid = await runNeo(['flow', 'graph', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(mermaid.stdout).toBe(
      [
        'flowchart TD',
        '  s_build["build<br/>run"]',
        '  s_fix["fix<br/>agent · script"]',
        '  s_build --> s_fix',
        '  subgraph finally',
        '    s_report["report<br/>run"]',
        '  end',
        '  s_fix -.-> s_report',
      ].join('\n'),
    );
    const dot = await runNeo(['flow', 'graph', 'plan.yaml', '--format', 'dot'], { cwd: dir, env: { NEO_HOME: home } });
    expect(dot.stdout).toContain('"build" -> "fix";');
    expect(dot.stdout).toContain('"fix" -> "report" [style=dashed];');
    const dry = await runNeo(['flow', 'run', 'plan.yaml', '--dry-run', '--input', 'n=7'], {
      cwd: dir,
      env: { NEO_HOME: home },
    });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('two · 3 steps · maxParallel 4 · budget none · nothing will run');
    expect(dry.stdout).toMatch(
      /fix +agent +script +- +- +acceptEdits ≤ acceptEdits +3 +none \(default\) +gate npm test \(×2\)/,
    );
    expect(dry.stdout).toContain('inputs: n=7');
    const json = JSON.parse(
      (
        await runNeo(['flow', 'run', 'plan.yaml', '--dry-run', '--json', '--backend', 'script'], {
          cwd: dir,
          env: { NEO_HOME: home },
        })
      ).stdout,
    );
    expect(json.steps[1]).toMatchObject({
      id: 'fix',
      backend: 'script',
      posture: 'acceptEdits',
      ceiling: 'acceptEdits',
      maxRounds: 3,
      provenance: { backend: '--backend', maxRounds: 'step fix' },
    });
    expect((await runNeo(['flow', 'list'], { cwd: dir, env: { NEO_HOME: home } })).stdout).toBe(
      'no runs yet: start one with `neo flow run plan.yaml`',
    );
  });

  it('a backend whose CLI is not installed refuses the run up front with one message naming how to install it', async () => {
    const { dir, home } = await folder({
      'plan.yaml':
        'name: needs-claude\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, backend: claude-code, brief: do it }\n',
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml'], {
      cwd: dir,
      env: { NEO_HOME: home, PATH: '/usr/bin:/bin', NEO_CLAUDE_CODE_BIN: '' },
    });
    // Known before anything runs: refused like a bad input, with nothing to clean (tests/e2e/flow-backend-preflight).
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: needs-claude: step `a` runs on backend `claude-code`, which cannot start here: Claude Code: executable "claude" not found',
    );
    expect(result.stderr).toContain(
      'hint: install it with `npm install -g @anthropic-ai/claude-code`, or point NEO_CLAUDE_CODE_BIN at the executable',
    );
  });

  it('exits 2 on bad input, 1 on a failed run (with the resume command), 0 on success', async () => {
    const { dir, home } = await folder({
      'plan.yaml': 'name: x\ninputs: { n: { type: number } }\nsteps:\n  - { id: a, run: "test $NEO_INPUT_N = 1" }\n',
    });
    const usage = await runNeo(['flow', 'run', 'plan.yaml', '--input', 'n=many'], {
      cwd: dir,
      env: { NEO_HOME: home },
    });
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toContain('error[FLOW_INPUT_TYPE]: input `n` must be a number, got "many"');
    const failed = await runNeo(['flow', 'run', 'plan.yaml', '--input', 'n=2'], { cwd: dir, env: { NEO_HOME: home } });
    expect(failed.exitCode).toBe(1);
    const runId = await onlyRunId(home);
    expect(failed.stdout).toContain(`resume: neo flow resume ${runId}`);
    const ok = await runNeo(['flow', 'run', 'plan.yaml', '--input', 'n=1'], { cwd: dir, env: { NEO_HOME: home } });
    expect(ok.exitCode).toBe(0);
    const list = await runNeo(['flow', 'list', '--json'], { cwd: dir, env: { NEO_HOME: home } });
    const runs = JSON.parse(list.stdout) as Array<{ runId: string; status: string }>;
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    // A unique prefix: the two runs may have started in the same second (ids share 16 characters then).
    const other = runs[0]!.runId;
    let length = 10;
    while (other.startsWith(runId.slice(0, length))) length++;
    const show = await runNeo(['flow', 'show', runId.slice(0, length)], { cwd: dir, env: { NEO_HOME: home } });
    expect(show.stdout).toContain(`${runId} · flow x · failed`);
    expect(show.stdout).toMatch(
      /✗ +a +failed +1 +exit 1 · \d+ms · FLOW_COMMAND_FAILED: `test \$NEO_INPUT_N = 1` exited 1/,
    );
  });

  it(
    'Ctrl-C interrupts the run, prints the resume command and exits 130; resume finishes it',
    { timeout: 120_000 },
    async () => {
      const { dir, home } = await folder({
        'plan.yaml':
          "name: slow\nsteps:\n  - { id: first, run: 'echo one >> log' }\n  - { id: wait, run: 'sleep 2; echo two >> log', needs: [first] }\n  - { id: last, run: 'echo three >> log', needs: [wait] }\n",
      });
      const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
      await waitForOutput(child, /step wait started/);
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(result.stderr).toContain('interrupting… (Ctrl-C again to kill)');
      const runId = await onlyRunId(home);
      expect(result.stdout).toContain(`⏸ slow interrupted`);
      expect(result.stdout).toContain(`resume: neo flow resume ${runId}`);
      const resumed = await runNeo(['flow', 'resume', runId], { cwd: dir, env: { NEO_HOME: home } });
      expect(resumed.exitCode).toBe(0);
      const events = await readEvents(home, runId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'step.started' && e.step === 'first')).toHaveLength(1);
      expect(events.map((e) => e.type)).toContain('run.interrupted');
    },
  );

  it(
    'a second Ctrl-C kills at once, even while the first is still cleaning up: its commands die with it, the run is recorded interrupted',
    { timeout: 60_000 },
    async () => {
      const root = await tempDir('neo-e2e-cli-');
      const marker = join(root, 'trapped');
      const { dir, home } = await folder({
        'plan.yaml': `name: stubborn\nsteps:\n  - { id: hold, run: "trap '' TERM; echo $$ > ${marker}; sleep 8" }\n`,
      });
      const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
      await waitForOutput(child, /step hold started/);
      // Interrupt only once the command ignores TERM, so the first Ctrl-C cannot finish quickly.
      while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
      const interrupting = waitForOutput(child, /interrupting…/, 'stderr');
      child.kill('SIGINT');
      await interrupting;
      child.kill('SIGINT');
      const result = await child;
      expect(result.signal).toBe('SIGINT');
      expect(result.stderr).toContain('interrupting… (Ctrl-C again to kill)');
      // The command leads its own group, so the terminal's Ctrl-C never reached it: neo killed it.
      expect(isAlive(Number(readFileSync(marker, 'utf8').trim()))).toBe(false);
      const runId = await onlyRunId(home);
      expect(JSON.parse(readFileSync(join(home, 'runs', runId, 'run.json'), 'utf8'))).toMatchObject({
        status: 'interrupted',
        reason: { code: 'FLOW_INTERRUPTED' },
      });
      expect((await readEvents(home, runId)).at(-1)).toMatchObject({ type: 'run.interrupted' });
    },
  );
});
