import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { project, run, trace } from './helpers.js';
import { tempDir } from '../../helpers/temp.js';

const SCRIPTS = fileURLToPath(new URL('../../fixtures/flows/scripts/', import.meta.url));

/** A one-agent-step plan on the script backend. */
function agentPlan(script: string, extra = '', defaults = ''): string {
  return `
name: agent
defaults: { backend: script, maxRounds: 4${defaults} }
steps:
  - id: work
    brief: Make the check pass.
    script: ${join(SCRIPTS, script)}
${extra}`;
}

describe('agent steps on the script backend: truthfulness', () => {
  it('an agent that says "done" while the gate fails fails the step, after the tail went back as guidance', async () => {
    const { dir, home } = await project({
      'plan.yaml': agentPlan(
        'claims-done.yaml',
        "    verify: { run: 'echo FAIL: missing ok; test -f ok', attempts: 2 }",
      ),
    });
    const { outcome } = await run(dir, home);
    const work = outcome.state.steps.get('work')!;
    expect(work.status).toBe('failed');
    expect(work.verdict).toBe('failed');
    expect(work.error).toEqual({
      code: 'FLOW_GATE_FAILED',
      message: 'the check `echo FAIL: missing ok; test -f ok` still fails after 2 attempts (exit 1)',
    });
    expect(work.outputs).toMatchObject({
      rounds: 2,
      text: 'Done for real this time.',
      gate: { passed: false, attempt: 2, attempts: 2, tail: 'FAIL: missing ok' },
    });
    expect(outcome.status).toBe('failed');
    const sessionId = String(work.outputs!.sessionId);
    const sessionEvents = (await readFile(join(home, 'code-sessions', sessionId, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event);
    const guidance = sessionEvents.filter((e) => e.type === 'guidance');
    expect(guidance).toHaveLength(1);
    expect(guidance[0].text).toContain('The check `echo FAIL: missing ok; test -f ok` exited 1 (attempt 1 of 2)');
    expect(guidance[0].text).toContain('FAIL: missing ok');
    expect(sessionEvents.at(-1)).toMatchObject({ type: 'released', outcome: 'failed' });
  });

  it('a step that changed nothing when its brief required a change gets verdict no-change, not success', async () => {
    const { dir, home } = await project({ 'plan.yaml': agentPlan('says-only.yaml') });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      verdict: 'no-change',
      error: {
        code: 'FLOW_NO_CHANGE',
        message:
          'the agent changed no file, and this step requires a change (set requireChange: false for review-only steps)',
      },
    });
    const review = await project({ 'plan.yaml': agentPlan('says-only.yaml', '    requireChange: false') });
    expect((await run(review.dir, review.home)).outcome.state.steps.get('work')).toMatchObject({
      status: 'succeeded',
      verdict: 'success',
    });
  });

  it('a hung agent is stalled by its idle timeout and the step fails with that reason', async () => {
    const { dir, home } = await project({ 'plan.yaml': agentPlan('hangs.yaml', '    idleTimeout: 300ms') });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      verdict: 'stalled',
      error: { code: 'FLOW_STEP_STALLED', message: 'the agent sent no event for 0.3s: stalled', transient: true },
    });
    expect(outcome.status).toBe('failed');
  });

  it('validates the final answer against outputSchema and exposes it as outputs.json', async () => {
    const schema =
      '    requireChange: false\n    outputSchema: { type: object, required: [approved], properties: { approved: { type: boolean } } }';
    const good = await project({ 'plan.yaml': agentPlan('answers-json.yaml', schema) });
    expect((await run(good.dir, good.home)).outcome.state.steps.get('work')!.outputs).toMatchObject({
      verdict: 'success',
      json: { approved: true, issues: [] },
    });
    const bad = await project({ 'plan.yaml': agentPlan('answers-bad-json.yaml', schema) });
    expect((await run(bad.dir, bad.home)).outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      error: {
        code: 'FLOW_OUTPUT_SCHEMA',
        message: "the final answer does not match outputSchema: (root) must have required property 'approved'",
      },
    });
  });

  it('stops the run cleanly with FLOW_BUDGET_EXCEEDED before a turn past maxTurns, and charges the ledger', async () => {
    const plan = `
name: budget
defaults: { backend: script, budgets: { maxTurns: 1 } }
steps:
  - id: work
    brief: Make ok exist.
    script: ${join(SCRIPTS, 'two-turns.yaml')}
    verify: { run: 'test -f ok', attempts: 3 }
  - { id: next, brief: more, script: ${join(SCRIPTS, 'says-only.yaml')}, needs: [work], join: all_done }
finally:
  - { id: report, run: 'echo report' }
`;
    const { dir, home } = await project({ 'plan.yaml': plan });
    const { outcome, events } = await run(dir, home);
    expect(outcome.state.steps.get('work')!.error).toEqual({
      code: 'FLOW_BUDGET_EXCEEDED',
      message: 'budget maxTurns reached (1 turns used of 1); the run stopped before starting more work',
    });
    expect(outcome.state.steps.get('next')).toMatchObject({ status: 'skipped', skipReason: 'FLOW_BUDGET_EXCEEDED' });
    expect(outcome.state.steps.get('report')!.status).toBe('succeeded');
    expect(outcome.reason?.code).toBe('FLOW_BUDGET_EXCEEDED');
    expect(outcome.state.ledger).toMatchObject({ turns: 1, tokens: 110, costUsd: 0.25 });
    expect(trace(events)).toContain('run.stopping');
  });

  it('answers clarifications by the built-in rules: allowed commands yes, others no, with a reason', async () => {
    const { dir, home } = await project({
      'plan.yaml': agentPlan('runs-commands.yaml', '    allowCommands: [echo *]'),
    });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('work')!.status).toBe('succeeded');
    const sessionId = String(outcome.state.steps.get('work')!.outputs!.sessionId);
    const decisions = (await readFile(join(home, 'code-sessions', sessionId, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event)
      .filter((e) => e.type === 'clarification')
      .map((e) => [e.decision, e.by]);
    // Every answer is recorded with who gave it: the flow's built-in driver, or the posture gate.
    expect(decisions).toEqual([
      [{ allow: true, reason: "`echo allowed` is in the step's allowed commands" }, `flow:${outcome.runId}:work#1`],
      [
        {
          allow: false,
          reason:
            "`curl http://example.com` is not an allowed command (allowed: `echo *`); add it to the step's allowCommands if it is needed",
        },
        `flow:${outcome.runId}:work#1`,
      ],
      [{ allow: true, reason: 'posture acceptEdits allows edits inside the workspace (out.txt)' }, 'posture'],
    ]);
  });

  it("charges a sub-flow's agent turns to the parent's ledger too", async () => {
    const { dir, home } = await project({
      'plan.yaml': 'name: parent\nsteps:\n  - { id: child, flow: child.flow.yaml }\n',
      'child.flow.yaml': `name: child\ndefaults: { backend: script }\nsteps:\n  - { id: work, brief: make ok, script: ${join(SCRIPTS, 'two-turns.yaml')}, verify: { run: 'test -f ok', attempts: 2 } }\n`,
    });
    const { outcome } = await run(dir, home);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.state.ledger).toMatchObject({ turns: 2, tokens: 220, costUsd: 0.5 });
    const child = JSON.parse(await readFile(join(home, 'runs', `${outcome.runId}.child.1-1`, 'run.json'), 'utf8'));
    expect(child.ledger).toMatchObject({ turns: 2, tokens: 220, costUsd: 0.5 });
  });

  it('a flake check reruns a failing gate once: passing the second time is a pass, marked flaky', async () => {
    // Each gate run judges a fresh tree, so the check keeps its count outside the workspace.
    const counter = join(await tempDir('neo-flake-'), 'n');
    const check = `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}; [ $n -ge 1 ]`;
    const { dir, home } = await project({
      'plan.yaml': agentPlan('writes-file.yaml', `    verify: { run: '${check}', flakeCheck: true }`),
    });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('work')).toMatchObject({
      status: 'succeeded',
      outputs: { gate: { passed: true, flaky: true, attempt: 1 } },
    });
    await rm(counter);
    const strict = await project({ 'plan.yaml': agentPlan('writes-file.yaml', `    verify: { run: '${check}' }`) });
    expect((await run(strict.dir, strict.home)).outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_GATE_FAILED' },
    });
  });
});
