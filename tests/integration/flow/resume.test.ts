import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { persisted, project, resume, run, trace } from './helpers.js';

const PLAN = `
name: three
steps:
  - { id: a, run: 'echo a >> log' }
  - { id: b, run: 'echo b >> log; test -f fast || sleep 30', needs: [a] }
  - { id: c, run: 'echo c >> log', needs: [b] }
`;

describe('interrupt and resume', () => {
  it('an interrupt stops live steps and leaves the run resumable; resume never re-runs a finished step', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN });
    const controller = new AbortController();
    const first = await run(dir, home, {
      signal: controller.signal,
      observer: (o) => {
        if (o.type === 'event' && o.event.type === 'step.started' && o.event.step === 'b') controller.abort();
      },
    });
    expect(first.outcome.status).toBe('interrupted');
    expect(trace(first.events).at(-1)).toBe('run.interrupted');
    expect(first.outcome.record.pid).toBeUndefined();
    await writeFile(join(dir, 'plan.yaml'), PLAN.replace('sleep 30', 'true'));
    // The pinned plan runs again (plan.json is the run's own, never edited): b finds `fast` this time.
    await writeFile(join(first.outcome.record.workspace!.path, 'fast'), '');
    const second = await resume(home, dir, first.outcome.runId);
    expect(second.outcome.status).toBe('succeeded');
    expect(trace(second.events)).toEqual([
      'run.resumed',
      'step.started b',
      'step.completed b succeeded',
      'step.started c',
      'step.completed c succeeded',
      'run.finished succeeded',
    ]);
    const notices = second.seen.filter((o) => o.type === 'notice').map((o) => (o.type === 'notice' ? o.message : ''));
    expect(notices).toEqual([
      'definitions changed since the run started: flow three; resuming with the pinned plan (pass --rebase-definitions to use the current files)',
    ]);
    const all = await persisted(home, first.outcome.runId);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(second.outcome.state.steps.get('a')!.executions).toBe(1);
    expect(second.outcome.record.segments).toHaveLength(2);
  });

  it('--rerun runs a finished step and what depends on it again; a succeeded run needs it', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN.replace('; test -f fast || sleep 30', '') });
    const first = await run(dir, home);
    expect(first.outcome.status).toBe('succeeded');
    await expect(resume(home, dir, first.outcome.runId)).rejects.toMatchObject({ code: 'FLOW_RUN_FINISHED' });
    await expect(resume(home, dir, first.outcome.runId, { rerun: ['bb'] })).rejects.toMatchObject({
      code: 'FLOW_UNKNOWN_STEP',
      hint: 'did you mean `b`?',
    });
    const again = await resume(home, dir, first.outcome.runId, { rerun: ['b'] });
    expect(trace(again.events)).toEqual([
      'run.resumed',
      'step.started b',
      'step.completed b succeeded',
      'step.started c',
      'step.completed c succeeded',
      'run.finished succeeded',
    ]);
    expect(again.outcome.state.steps.get('a')!.executions).toBe(1);
    expect(again.outcome.state.steps.get('b')!.executions).toBe(2);
  });

  it('a failed run resumes its failed steps; --rebase-definitions picks up the fixed plan', async () => {
    const { dir, home } = await project({ 'plan.yaml': PLAN.replace('sleep 30', 'exit 1') });
    const first = await run(dir, home);
    expect(first.outcome.status).toBe('failed');
    await writeFile(join(dir, 'plan.yaml'), PLAN.replace('; test -f fast || sleep 30', ''));
    const pinned = await resume(home, dir, first.outcome.runId);
    expect(pinned.outcome.status).toBe('failed');
    const rebased = await resume(home, dir, first.outcome.runId, { rebaseDefinitions: true });
    expect(rebased.outcome.status).toBe('succeeded');
    const resumed = rebased.events[0]!;
    expect(resumed).toMatchObject({ type: 'run.resumed', rebased: { changed: ['b'], added: [], removed: [] } });
  });
});
