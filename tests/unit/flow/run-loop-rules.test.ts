import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import type { ExecutionOutcome, ExecutionSpec } from '../../../engine/flow/core/execution.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import { createRunLoop, type RunLoopInput } from '../../../engine/flow/core/run-loop.js';
import { initialRunState } from '../../../engine/flow/core/state.js';
import { compileYaml, tick, trace } from './helpers.js';

// The driver's own rules (what drive.ts relies on), apart from the scheduling the core decides.

function loopOf(plan: CompiledPlan, over: Partial<RunLoopInput> & Pick<RunLoopInput, 'execute'>) {
  const events: RunEvent[] = [];
  const loop = createRunLoop({
    plan,
    state: initialRunState(
      'r',
      plan.steps.map((s) => s.id),
    ),
    boot: { type: 'start', inputs: {}, run: { id: 'r', workspace: '/w', projectDir: '/p' } },
    now: tick,
    onEvent: (event) => events.push(event),
    ...over,
  });
  return { loop, events };
}

const ok = (spec: ExecutionSpec): ExecutionOutcome => ({ exec: spec.exec, status: 'succeeded', outputs: {} });

const wide = compileYaml(`
name: wide
steps:
  - { id: a, run: "true" }
  - { id: b, run: "true" }
`);

describe('run loop: run to completion', () => {
  it('handles an input sent from an event listener after the whole transition, and starts executions after its events', async () => {
    const seen: string[] = [];
    const events: RunEvent[] = [];
    const { loop } = loopOf(wide, {
      execute: async (spec) => {
        seen.push(`execute ${spec.step}`);
        return ok(spec);
      },
      onEvent: (event) => {
        events.push(event);
        seen.push(event.type === 'step.started' ? `event ${event.step}` : event.type);
        if (event.type === 'step.started' && event.step === 'a')
          loop.send({ type: 'charge', step: 'a', turns: 1, tokens: 5, costUsd: 0 });
      },
    });
    loop.start();
    const state = await loop.done;
    expect(trace(events).slice(0, 4)).toEqual(['run.started', 'step.started a', 'step.started b', 'ledger.charged a']);
    expect(seen.slice(0, 5)).toEqual(['run.started', 'event a', 'event b', 'execute a', 'execute b']);
    expect(state.status).toBe('succeeded');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('handles inputs sent before start after the boot, and ignores inputs once the run settled', async () => {
    const { loop, events } = loopOf(wide, { execute: async (spec) => ok(spec) });
    loop.send({ type: 'charge', step: 'a', turns: 1, tokens: 1, costUsd: 0 });
    expect(events).toEqual([]);
    loop.start();
    expect(trace(events).slice(0, 4)).toEqual(['run.started', 'step.started a', 'step.started b', 'ledger.charged a']);
    const state = await loop.done;
    const count = events.length;
    loop.send({ type: 'interrupt', reason: 'late' });
    expect(loop.active).toBe(false);
    expect(events.length).toBe(count);
    expect(loop.state).toBe(state);
  });
});

describe('run loop: executions', () => {
  it('aborts a stopped execution and drops its late outcome', async () => {
    const plan = compileYaml(`
name: slow
steps:
  - { id: a, run: "sleep" }
`);
    let aborted = false;
    let finish!: () => void;
    const { loop, events } = loopOf(plan, {
      // Ignores its abort for a while, then reports success: the run no longer waits for it.
      execute: (spec, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => (aborted = true));
          finish = () => resolve(ok(spec));
        }),
    });
    loop.start();
    loop.send({ type: 'interrupt', reason: 'Ctrl-C' });
    const state = await loop.done;
    expect(aborted).toBe(true);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(trace(events)).toEqual(['run.started', 'step.started a', 'run.interrupted']);
    expect(state.status).toBe('interrupted');
  });

  it('reports an execution that rejects as FLOW_EXECUTOR_CRASHED', async () => {
    const plan = compileYaml(`
name: crash
steps:
  - { id: a, run: "true" }
`);
    const { loop } = loopOf(plan, {
      execute: () => Promise.reject(new Error('boom')),
    });
    loop.start();
    const state = await loop.done;
    expect(state.status).toBe('failed');
    expect(state.steps.get('a')!.error).toMatchObject({ code: 'FLOW_EXECUTOR_CRASHED', message: 'boom' });
  });

  it('ends on a transition that throws: live executions are aborted and done rejects with the error', async () => {
    let aborted = false;
    const { loop } = loopOf(wide, {
      execute: (spec, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve(ok(spec));
          });
        }),
      onEvent: (event) => {
        if (event.type === 'ledger.charged') throw new Error('listener defect');
      },
    });
    loop.start();
    loop.send({ type: 'charge', step: 'a', turns: 1, tokens: 1, costUsd: 0 });
    await expect(loop.done).rejects.toThrow('listener defect');
    expect(aborted).toBe(true);
    expect(loop.active).toBe(false);
  });
});
