/** `neo persona run | graph`, `neo backends list` track records and `neo flow approve` for a persona's question, through the built binary. */
import { execa } from 'execa';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { NEO_BIN, runNeo } from '../../helpers/cli.js';
import { pendingQuestion } from '../../../engine/persona/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { fixerPersona, writeScenario } from '../../fixtures/persona/scenario.js';

async function setup(agents: Record<string, string>) {
  const home = await tempDir('neo-cli-home-');
  const cwd = await tempDir('neo-cli-cwd-');
  const scripts = await tempDir('neo-cli-scripts-');
  await writeTree(home, Object.fromEntries(Object.entries(agents).map(([id, text]) => [`agents/${id}.md`, text])));
  return { home, cwd, scripts, env: { NEO_HOME: home } };
}

describe('neo persona run', () => {
  test('drives the persona with the flow display, records the outcome, and neo backends list shows the track record', async () => {
    const s = await setup({ fixer: fixerPersona() });
    const script = await writeScenario(s.cwd, s.scripts);
    const run = await runNeo(
      [
        'persona',
        'run',
        'fixer',
        '--brief',
        'Make node check.js pass.',
        '--backend',
        'script',
        '--script',
        script,
        '--cwd',
        s.cwd,
      ],
      { env: s.env },
    );
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^run persona-fixer-[a-z0-9]+ · flow persona fixer · 1 step$/);
    expect(lines[1]).toBe('step fixer started');
    expect(lines.slice(2, 10)).toEqual([
      'note: backend pinned to script',
      "note: allowed write (clarify[0]): write on src/value.txt is allowed by the persona's rules",
      "note: allowed run (clarify[1]): `node check.js` is allowed by the persona's rules",
      'note: denied run (otherwise): `node check.js && rm -rf src` chains, pipes or redirects commands; run each allowed command on its own',
      'note: check `node check.js` failed (exit 1)',
      'note: guidance sent: `node check.js` failed (attempt 1)',
      "note: allowed edit (clarify[0]): edit on src/value.txt is allowed by the persona's rules",
      'note: check `node check.js` passed',
    ]);
    expect(lines.find((l) => l.startsWith('step fixer succeeded'))).toMatch(
      /^step fixer succeeded · success · gate `node check.js` passed \(attempt 2\/2\) · \$0\.0300 · /,
    );
    expect(lines).toContain('✓ success · `node check.js` passed');
    expect(lines.find((l) => l.startsWith('  session cs_'))).toMatch(
      /^  session cs_\S+ · script · script-model-1 · 2 rounds · \$0\.0300$/,
    );
    expect(lines).toContain('  recorded 1 outcome in learning/harness-outcomes.jsonl');

    const backends = await runNeo(['backends', 'list', '--no-probe'], { env: s.env, cwd: s.cwd });
    expect(backends.exitCode).toBe(0);
    expect(backends.stdout).toContain(
      '\ntrack record (learning/harness-outcomes.jsonl):\n  script: 1 run, 100% success, avg 2.0 rounds',
    );
    const json = JSON.parse(
      (await runNeo(['backends', 'list', '--no-probe', '--json'], { env: s.env, cwd: s.cwd })).stdout,
    ) as Array<{ id: string; trackRecord?: string[] }>;
    expect(json.find((b) => b.id === 'script')!.trackRecord).toEqual(['script: 1 run, 100% success, avg 2.0 rounds']);
    expect(json.find((b) => b.id === 'codex')!.trackRecord).toBeUndefined();
  });

  test('--json: NDJSON events and a summary; a failed verdict exits 1', async () => {
    const s = await setup({ fixer: fixerPersona().replace('maxRounds: 4', 'maxRounds: 1') });
    const script = await writeScenario(s.cwd, s.scripts);
    const run = await runNeo(
      ['persona', 'run', 'fixer', '--brief', 'b', '--backend', 'script', '--script', script, '--cwd', s.cwd, '--json'],
      { env: s.env },
    );
    expect(run.exitCode).toBe(1);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({
      type: 'run',
      flow: 'persona fixer',
      steps: [{ id: 'fixer', kind: 'agent', needs: [] }],
    });
    expect(events.at(-1)).toMatchObject({
      type: 'summary',
      verdict: 'failed',
      failureReason: 'the agent used all 1 rounds and the check `node check.js` still fails',
      backend: 'script',
      rounds: 1,
    });
    const completed = events.find((e) => e.type === 'event' && (e.event as { type: string }).type === 'step.completed');
    expect(completed).toMatchObject({
      event: { status: 'failed', verdict: 'failed', error: { code: 'PERSONA_FAILED' } },
    });
  });

  test('an unknown persona is a usage error', async () => {
    const s = await setup({});
    const run = await runNeo(['persona', 'run', 'fixr', '--brief', 'b'], { env: s.env, cwd: s.cwd });
    expect(run.stderr).toBe('error[PERSONA_UNKNOWN]: unknown persona `fixr`\n  hint: run `neo personas list`');
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('PERSONA_UNKNOWN');
  });
});

describe('neo personas show --effective', () => {
  test('prints the scope constraints a dispatch registers and how the persona drives', async () => {
    const s = await setup({ fixer: fixerPersona({ extra: 'policy: careful' }) });
    const show = await runNeo(['personas', 'show', 'fixer', '--effective'], { env: s.env, cwd: s.cwd });
    expect(show.exitCode).toBe(0);
    const lines = show.stdout.split('\n');
    expect(lines).toContain('  scope constraints: {"maxPosture":"default","maxRounds":4}');
    expect(lines).toContain(
      '  driving: rules · 2 clarify rules, otherwise deny · verify `node check.js` · prefer script',
    );
    const json = JSON.parse(
      (await runNeo(['personas', 'show', 'fixer', '--effective', '--json'], { env: s.env, cwd: s.cwd })).stdout,
    ) as { constraints: unknown };
    expect(json.constraints).toEqual({ maxPosture: 'default', maxRounds: 4 });
  });
});

describe('neo personas show --effective on a backend', () => {
  test('says what is advisory on the backend the persona runs on, or that nothing is', async () => {
    const s = await setup({
      coder: '---\ndescription: Codes on codex.\nbackend: codex\n---\nYou code.\n',
      clauder: '---\ndescription: Codes on Claude Code.\nbackend: claude-code\n---\nYou code.\n',
    });
    const codex = await runNeo(['personas', 'show', 'coder', '--effective'], { env: s.env, cwd: s.cwd });
    expect(codex.stdout).toContain(
      '  on codex, advisory: allowCommands decides only commands that ask to leave the sandbox',
    );
    const json = JSON.parse(
      (await runNeo(['personas', 'show', 'coder', '--effective', '--json'], { env: s.env, cwd: s.cwd })).stdout,
    ) as { enforcement: { backend: string; advisory: string } };
    expect(json.enforcement).toMatchObject({ backend: 'codex', advisory: expect.stringContaining('read-only') });
    const claude = await runNeo(['personas', 'show', 'clauder', '--effective'], { env: s.env, cwd: s.cwd });
    expect(claude.stdout).toContain(
      '  on claude-code: neo decides every edit and command it asks about (nothing advisory)',
    );
    expect(claude.stdout).not.toContain('no backend pinned');
  });

  test('with no backend pinned, names every backend where allowCommands is advisory', async () => {
    const s = await setup({ loose: '---\ndescription: Codes anywhere.\n---\nYou code.\n' });
    const show = await runNeo(['personas', 'show', 'loose', '--effective'], { env: s.env, cwd: s.cwd });
    expect(show.stdout).toContain(
      '  no backend pinned; advisory on codex, droid, gemini (allowCommands there does not stop every command: docs/backends.md#enforcement; pin a backend to see its line)',
    );
    const json = JSON.parse(
      (await runNeo(['personas', 'show', 'loose', '--effective', '--json'], { env: s.env, cwd: s.cwd })).stdout,
    ) as { advisoryOn: Record<string, string> };
    expect(Object.keys(json.advisoryOn)).toEqual(['codex', 'droid', 'gemini']);
  });
});

describe('neo persona graph', () => {
  test('draws the driving statechart with who decides where', async () => {
    const s = await setup({ fixer: fixerPersona() });
    const mermaid = await runNeo(['persona', 'graph', 'fixer'], { env: s.env, cwd: s.cwd });
    expect(mermaid.exitCode).toBe(0);
    expect(mermaid.stdout.split('\n').slice(0, 9)).toEqual([
      '---',
      'title: persona fixer (driver)',
      '---',
      'stateDiagram-v2',
      '  select: select · rules (prefer script)',
      '  decide: decide · rules (2 clarify rules, otherwise deny)',
      '  judge: judge · rules · verify node check.js',
      '  verify: verify · rules · verify node check.js',
      '  [*] --> listBackends',
    ]);
    const dot = await runNeo(['persona', 'graph', 'code-specialist', '--format', 'dot'], { env: s.env, cwd: s.cwd });
    expect(dot.stdout).toContain('digraph "persona code-specialist (driver)" {');
    expect(dot.stdout).toContain('"read" -> "decide" [label="clarification"];');
  });
});

describe("a persona's question answered with neo flow approve", () => {
  test('a human decider waits for the person, who answers from another terminal', async () => {
    const s = await setup({ asker: fixerPersona({ decide: 'human' }) });
    const script = await writeScenario(s.cwd, s.scripts, {
      turns: [[{ write: { path: 'src/value.txt', content: 'fixed\n' } }, { say: 'done' }]],
    });
    const child = execa(
      process.execPath,
      [NEO_BIN, 'persona', 'run', 'asker', '--brief', 'b', '--backend', 'script', '--script', script, '--cwd', s.cwd],
      { env: { NO_COLOR: '1', ...s.env }, reject: false },
    );
    const question = async () => {
      for (;;) {
        const runs = await readdir(join(s.home, 'approvals')).catch(() => [] as string[]);
        for (const runId of runs) {
          const files = (await readdir(join(s.home, 'approvals', runId)).catch(() => [] as string[])).filter((f) =>
            f.endsWith('.question.json'),
          );
          // An answered question stays, closed: the one asked now is the open one.
          for (const file of files) {
            const key = file.replace('.question.json', '');
            if ((await pendingQuestion(s.home, runId, key)) !== undefined) return { runId, key };
          }
        }
        await sleep(50);
      }
    };
    const q1 = await question();
    expect(q1.key).toBe('q1');
    const wrong = await runNeo(['flow', 'approve', q1.runId, 'q1', '--decision', 'maybe'], { env: s.env });
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('PERSONA_UNKNOWN_DECISION');
    const allow = await runNeo(['flow', 'approve', q1.runId, 'q1', '--decision', 'allow'], { env: s.env });
    expect(allow.exitCode).toBe(0);
    expect(allow.stdout).toBe(`✓ q1 of ${q1.runId}: allow\n  The agent asks to use write. Allow it?`);
    for (;;) {
      const next = await question();
      if (next.key === 'q2') break;
    }
    const late = await runNeo(['flow', 'approve', q1.runId, 'q1', '--decision', 'deny'], { env: s.env });
    expect(late.exitCode).toBe(2);
    expect(late.stderr).toMatch(
      /error\[PERSONA_QUESTION_ANSWERED\]: question `q1` of run \S+ was already answered: allow by cli \(/,
    );
    const verdict = await runNeo(
      ['flow', 'approve', q1.runId, 'q2', '--decision', 'success', '--note', 'looks right'],
      { env: s.env },
    );
    expect(verdict.exitCode).toBe(0);
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✓ success · looks right');
    expect(result.stdout).toContain(`waiting for approval: neo flow approve ${q1.runId} q1 --decision allow|deny`);
  });
});
