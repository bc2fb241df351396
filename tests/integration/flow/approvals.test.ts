import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approveRun, type FlowObservation } from '../../../engine/flow/index.js';
import { project, resume, run } from './helpers.js';
import { defined } from '../../../engine/util/defined.js';

const PLAN = `
name: gate
steps:
  - { id: build, run: 'echo built > built.txt' }
  - id: ship
    needs: [build]
    approval:
      prompt: Ship it?
      decisions: [ { id: approve }, { id: hold, label: Not yet, fail: true } ]
  - { id: deploy, run: 'echo deployed > deployed.txt', needs: [ship] }
`;

/** Answers the approval (as `neo flow approve` would, from another terminal) once the run waits. */
function answerWhenWaiting(home: string, decision: string, note?: string) {
  return (o: FlowObservation) => {
    if (o.type === 'progress' && o.progress.note?.startsWith('waiting for approval')) {
      void approveRun({ home, runId: o.runId, step: 'ship', decision, ...defined({ note }) });
    }
  };
}

describe('approvals', () => {
  it('waits until `neo flow approve` answers from another terminal, and records who answered', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const { outcome } = await run(dir, home, { observer: answerWhenWaiting(home, 'approve', 'lgtm') });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.state.steps.get('ship')).toMatchObject({
      status: 'succeeded',
      verdict: 'approve',
      outputs: { decision: 'approve', note: 'lgtm' },
    });
    expect(String(outcome.state.steps.get('ship')!.outputs!.by)).toMatch(/^cli \(/);
    expect(await readFile(join(outcome.record.workspace!.path, 'deployed.txt'), 'utf8')).toBe('deployed\n');
  });

  it('fails the step on a decision marked fail, and the run with it', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const { outcome } = await run(dir, home, { observer: answerWhenWaiting(home, 'hold', 'after the freeze') });
    expect(outcome.status).toBe('failed');
    expect(outcome.state.steps.get('ship')!.error).toMatchObject({ code: 'FLOW_APPROVAL_REJECTED' });
    expect(outcome.state.steps.get('ship')!.error!.message).toMatch(/chose `hold`: after the freeze$/);
    expect(outcome.state.steps.get('deploy')!.status).toBe('skipped');
  });

  it('never approves itself: an unanswered approval fails at its timeout', async () => {
    const { dir, home } = await project({
      'plan.yaml': PLAN.replace('    approval:', '    timeout: 200ms\n    approval:'),
    });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('ship')).toMatchObject({
      status: 'failed',
      verdict: 'unanswered',
      error: { code: 'FLOW_APPROVAL_TIMEOUT' },
    });
    expect(outcome.state.steps.get('deploy')!.status).toBe('skipped');
    expect(outcome.status).toBe('failed');
  });

  it('pre-approves with --yes and records that it did', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const { outcome } = await run(dir, home, { yes: true });
    expect(outcome.state.steps.get('ship')!.outputs).toEqual({
      decision: 'approve',
      by: '--yes',
      preapproved: true,
      note: 'pre-approved with --yes',
    });
    const record = JSON.parse(await readFile(join(home, 'runs', outcome.runId, 'run.json'), 'utf8'));
    expect(record.options.yes).toBe(true);
    expect(record.segments[0].yes).toBe(true);
  });

  it('checks an answer before leaving it: step, kind, decision, not answered twice', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const { outcome } = await run(dir, home, { yes: true });
    const runId = outcome.runId;
    await expect(approveRun({ home, runId, step: 'shp', decision: 'approve' })).rejects.toMatchObject({
      code: 'FLOW_UNKNOWN_STEP',
      hint: 'did you mean `ship`?',
    });
    await expect(approveRun({ home, runId, step: 'build', decision: 'approve' })).rejects.toMatchObject({
      code: 'FLOW_NOT_AN_APPROVAL',
    });
    await expect(approveRun({ home, runId, step: 'ship', decision: 'yes' })).rejects.toMatchObject({
      code: 'FLOW_UNKNOWN_DECISION',
      hint: 'choose one of: approve, hold',
    });
    await expect(approveRun({ home, runId, step: 'ship', decision: 'approve' })).rejects.toMatchObject({
      code: 'FLOW_APPROVAL_ANSWERED',
      message: expect.stringMatching(/^`ship` of run \S+ was already answered: approve by --yes at \S+/),
    });
  });

  it('keeps an answer given while no process runs the run, for the resume', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const controller = new AbortController();
    const first = await run(dir, home, {
      signal: controller.signal,
      observer: (o) => {
        if (o.type === 'progress' && o.progress.note?.startsWith('waiting for approval')) controller.abort();
      },
    });
    expect(first.outcome.status).toBe('interrupted');
    const answered = await approveRun({ home, runId: first.outcome.runId, step: 'ship', decision: 'approve' });
    expect(answered.live).toBe(false);
    const second = await resume(home, dir, first.outcome.runId);
    expect(second.outcome.status).toBe('succeeded');
    expect(second.outcome.state.steps.get('build')!.executions).toBe(1);
    expect(second.outcome.state.steps.get('ship')!.verdict).toBe('approve');
  });

  it('keeps one answer per approval: a second is refused naming the first, and the run follows the first', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const refused: unknown[] = [];
    let answers: Promise<unknown> = Promise.resolve();
    const { outcome } = await run(dir, home, {
      observer: (o) => {
        if (o.type === 'progress' && o.progress.note?.startsWith('waiting for approval')) {
          answers = approveRun({ home, runId: o.runId, step: 'ship', decision: 'hold', by: 'first' }).then(() =>
            approveRun({ home, runId: o.runId, step: 'ship', decision: 'approve', by: 'second' }).catch((e) =>
              refused.push(e),
            ),
          );
        }
      },
    });
    await answers;
    expect(outcome.status).toBe('failed');
    expect(outcome.state.steps.get('ship')).toMatchObject({ verdict: 'hold', outputs: { by: 'first' } });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'FLOW_APPROVAL_ANSWERED' });
    expect(String((refused[0] as Error).message)).toMatch(/hold by first/);
  });

  it('asks afresh when a resume runs a rejected approval again: the old answer does not answer it', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const first = await run(dir, home, { observer: answerWhenWaiting(home, 'hold') });
    expect(first.outcome.status).toBe('failed');
    const second = await resume(home, dir, first.outcome.runId, { observer: answerWhenWaiting(home, 'approve') });
    expect(second.outcome.status).toBe('succeeded');
    expect(second.outcome.state.steps.get('ship')).toMatchObject({ verdict: 'approve', executions: 2 });
  });
});
