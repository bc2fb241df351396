import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import type { ExecutionOutcome, ExecutionSpec } from '../../../engine/flow/core/execution.js';
import { createRunLoop } from '../../../engine/flow/core/run-loop.js';
import { replay } from '../../../engine/flow/core/reduce.js';
import { initialRunState } from '../../../engine/flow/core/state.js';
import { compileYaml, runPlan, succeed, tick, trace } from './helpers.js';

describe('run loop: ordering and joins', () => {
  it('runs a needs chain in order and finishes succeeded with gapless seq', async () => {
    const plan = compileYaml(`
name: chain
steps:
  - { id: a, run: "true" }
  - { id: b, run: "true", needs: [a] }
  - { id: c, run: "true", needs: [b] }
`);
    const { events, state } = await runPlan(plan, succeed);
    expect(trace(events)).toEqual([
      'run.started',
      'step.started a',
      'step.completed a succeeded',
      'step.started b',
      'step.completed b succeeded',
      'step.started c',
      'step.completed c succeeded',
      'run.finished succeeded',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(state.status).toBe('succeeded');
  });

  it('never runs more than maxParallel steps at once, and approvals do not count', async () => {
    const plan = compileYaml(`
name: wide
defaults: { maxParallel: 2 }
steps:
  - { id: gate, approval: { prompt: ok? } }
  - { id: a, run: "true" }
  - { id: b, run: "true" }
  - { id: c, run: "true" }
  - { id: d, run: "true" }
`);
    let running = 0;
    let peak = 0;
    const { state } = await runPlan(plan, async (spec) => {
      if (spec.kind === 'approval') return { status: 'succeeded', outputs: { decision: 'approve' } };
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return { status: 'succeeded', outputs: {} };
    });
    expect(peak).toBe(2);
    expect(state.status).toBe('succeeded');
  });

  it('skips on a false `if`, cascades the skip through all_success, and runs all_done / one_success joins', async () => {
    const plan = compileYaml(`
name: joins
inputs: { go: { type: boolean, default: false } }
steps:
  - { id: a, run: "true", if: "inputs.go" }
  - { id: b, run: "true", needs: [a] }
  - { id: c, run: "true", needs: [a], join: all_done }
  - { id: d, run: "false" }
  - { id: e, run: "true", needs: [c, d], join: one_success }
`);
    const executor = (spec: ExecutionSpec) =>
      spec.step === 'd'
        ? { status: 'failed' as const, outputs: {}, error: { code: 'FLOW_COMMAND_FAILED', message: 'exit 1' } }
        : { status: 'succeeded' as const, outputs: {} };
    const { events, state } = await runPlan(plan, executor, {
      type: 'start',
      inputs: { go: false },
      run: { id: 'r1', workspace: '/ws', projectDir: '/p' },
    });
    expect(state.steps.get('a')!.status).toBe('skipped');
    expect(state.steps.get('a')!.skipReason).toBe('if');
    expect(state.steps.get('b')!.skipReason).toBe('join');
    expect(state.steps.get('c')!.status).toBe('succeeded');
    expect(state.steps.get('e')!.status).toBe('succeeded');
    expect(state.status).toBe('failed');
    expect(state.reason).toEqual({
      code: 'FLOW_STEP_FAILED',
      message: 'step `d` failed: exit 1 (FLOW_COMMAND_FAILED)',
      cause: 'FLOW_COMMAND_FAILED',
    });
    expect(trace(events).at(-1)).toBe('run.finished failed');
  });

  it('is never succeeded while a step without continueOnError failed; continueOnError lets it succeed', async () => {
    const failing = (spec: ExecutionSpec) =>
      spec.step === 'x'
        ? { status: 'failed' as const, outputs: {}, error: { code: 'E', message: 'no' } }
        : { status: 'succeeded' as const, outputs: {} };
    const strict = compileYaml(`{ name: s, steps: [ { id: x, run: "false" }, { id: y, run: "true" } ] }`);
    expect((await runPlan(strict, failing)).state.status).toBe('failed');
    const lenient = compileYaml(
      `{ name: s, steps: [ { id: x, run: "false", continueOnError: true }, { id: y, run: "true" } ] }`,
    );
    expect((await runPlan(lenient, failing)).state.status).toBe('succeeded');
  });

  it('runs finally steps after the main steps, whatever happened', async () => {
    const plan = compileYaml(`
name: fin
steps:
  - { id: a, run: "false" }
  - { id: b, run: "true", needs: [a] }
finally:
  - { id: cleanup, run: "true" }
`);
    const { events, state } = await runPlan(plan, (spec) =>
      spec.step === 'a'
        ? { status: 'failed', outputs: {}, error: { code: 'E', message: 'x' } }
        : { status: 'succeeded', outputs: {} },
    );
    expect(trace(events)).toEqual([
      'run.started',
      'step.started a',
      'step.completed a failed',
      'step.skipped b (join)',
      'step.started cleanup',
      'step.completed cleanup succeeded',
      'run.finished failed',
    ]);
    expect(state.steps.get('cleanup')!.status).toBe('succeeded');
  });

  it('fails a step whose `if` cannot be evaluated, with FLOW_EXPRESSION', async () => {
    const plan = compileYaml(`{ name: e, steps: [ { id: a, run: "true", if: "fromJSON('nope')" } ] }`);
    const { state } = await runPlan(plan, succeed);
    expect(state.steps.get('a')!.error?.code).toBe('FLOW_EXPRESSION');
    expect(state.status).toBe('failed');
  });
});

describe('run loop: foreach, loop, retry', () => {
  it('fans out over a list known at run time, within foreach.maxParallel, and aggregates outputs', async () => {
    const plan = compileYaml(`
name: fan
steps:
  - { id: list, run: "ls" }
  - id: each
    needs: [list]
    run: "echo $NEO_ITEM"
    foreach: { items: "\${{ fromJSON(steps.list.outputs.stdout) }}", maxParallel: 2 }
`);
    let running = 0;
    let peak = 0;
    const { state, started } = await runPlan(plan, async (spec) => {
      if (spec.step === 'list') return { status: 'succeeded', outputs: { stdout: '["a","b","c","d","e"]' } };
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return { status: 'succeeded', outputs: { got: spec.env.NEO_ITEM } };
    });
    expect(peak).toBe(2);
    expect(started.filter((s) => s.step === 'each').map((s) => [s.item, s.env.NEO_ITEM, s.env.NEO_ITEM_INDEX])).toEqual(
      [
        [0, 'a', '0'],
        [1, 'b', '1'],
        [2, 'c', '2'],
        [3, 'd', '3'],
        [4, 'e', '4'],
      ],
    );
    expect(state.steps.get('each')!.outputs).toEqual({
      items: ['a', 'b', 'c', 'd', 'e'].map((got) => ({ got })),
      count: 5,
      succeeded: 5,
      failed: 0,
    });
  });

  it('fails a foreach whose items are not a list', async () => {
    const plan = compileYaml(`{ name: f, steps: [ { id: each, run: "true", foreach: { items: "\${{ 'abc' }}" } } ] }`);
    const { state } = await runPlan(plan, succeed);
    expect(state.steps.get('each')!.error).toEqual({
      code: 'FLOW_FOREACH_NOT_LIST',
      message: 'foreach.items of step `each` is the text "abc", not a list',
    });
  });

  it('loops until an expression over the last iteration holds', async () => {
    const plan = compileYaml(
      `{ name: l, steps: [ { id: poll, run: "true", loop: { until: "loop.outputs.n >= 3", maxIterations: 10 } } ] }`,
    );
    const { state, started } = await runPlan(plan, (spec) => ({ status: 'succeeded', outputs: { n: spec.iteration } }));
    expect(started.map((s) => s.env.NEO_ITERATION)).toEqual(['1', '2', '3']);
    expect(state.steps.get('poll')!.outputs).toEqual({ n: 3, iterations: 3 });
    expect(state.status).toBe('succeeded');
  });

  it('fails a loop that runs out of iterations (never a silent success)', async () => {
    const plan = compileYaml(
      `{ name: l, steps: [ { id: poll, run: "true", loop: { untilRun: "test -f done", maxIterations: 2 } } ] }`,
    );
    const { state } = await runPlan(plan, () => ({ status: 'succeeded', outputs: {}, untilPassed: false }));
    expect(state.steps.get('poll')!.error).toEqual({
      code: 'FLOW_LOOP_EXHAUSTED',
      message: '2 iterations ran and `test -f done` never passed',
    });
  });

  it('retries transient errors with doubling backoff and leaves other errors alone', async () => {
    const plan = compileYaml(`
name: r
steps:
  - { id: flaky, run: "x", retry: { attempts: 3, backoff: 2s } }
  - { id: broken, run: "x", retry: { attempts: 3 } }
  - { id: any, run: "x", retry: { attempts: 2, on: any } }
`);
    const { state, started } = await runPlan(plan, (spec) => {
      if (spec.step === 'flaky')
        return spec.attempt < 3
          ? { status: 'failed', outputs: {}, error: { code: 'T', message: 't', transient: true } }
          : { status: 'succeeded', outputs: {} };
      return { status: 'failed', outputs: {}, error: { code: 'HARD', message: 'h' } };
    });
    expect(started.filter((s) => s.step === 'flaky').map((s) => [s.attempt, s.delayMs])).toEqual([
      [1, undefined],
      [2, 2000],
      [3, 4000],
    ]);
    expect(started.filter((s) => s.step === 'broken')).toHaveLength(1);
    expect(started.filter((s) => s.step === 'any')).toHaveLength(2);
    expect(state.steps.get('flaky')!.status).toBe('succeeded');
  });
});

describe('run loop: budgets, env, interrupt and resume', () => {
  it('stops cleanly with FLOW_BUDGET_EXCEEDED before a turn past maxTurns, and still runs finally steps', async () => {
    const plan = compileYaml(`
name: b
defaults: { backend: script, budgets: { maxTurns: 2 } }
steps:
  - { id: one, brief: do it }
  - { id: two, brief: more, needs: [one] }
finally:
  - { id: report, run: "true" }
`);
    const events: RunEvent[] = [];
    const loop = createRunLoop({
      plan,
      state: initialRunState(
        'r',
        plan.steps.map((s) => s.id),
      ),
      boot: { type: 'start', inputs: {}, run: { id: 'r', workspace: '/w', projectDir: '/p' } },
      now: tick,
      execute: async (spec): Promise<ExecutionOutcome> => ({ exec: spec.exec, status: 'succeeded', outputs: {} }),
      onEvent: (event) => events.push(event),
    });
    loop.start();
    loop.send({ type: 'charge', step: 'one', turns: 2, tokens: 10, costUsd: 0.5 });
    const state = await loop.done;
    expect(trace(events)).toEqual([
      'run.started',
      'step.started one',
      'ledger.charged one',
      'step.completed one succeeded',
      'run.stopping',
      'step.skipped two (FLOW_BUDGET_EXCEEDED)',
      'step.started report',
      'step.completed report succeeded',
      'run.finished failed',
    ]);
    expect(state.reason?.code).toBe('FLOW_BUDGET_EXCEEDED');
    expect(state.ledger).toMatchObject({ turns: 2, tokens: 10, costUsd: 0.5 });
  });

  it('passes values to commands only as env: inputs, needed outputs, rendered step env', async () => {
    const plan = compileYaml(`
name: env
inputs: { target: { default: "npm test" } }
env: { GREETING: "hi \${{ inputs.target }}" }
steps:
  - { id: a, run: "true" }
  - { id: b, needs: [a], run: 'echo "$T"', env: { T: "\${{ steps.a.outputs.word }}!" } }
`);
    const { started } = await runPlan(
      plan,
      (spec) => ({ status: 'succeeded', outputs: spec.step === 'a' ? { word: 'yes', obj: { k: 1 } } : {} }),
      { type: 'start', inputs: { target: 'npm test' }, run: { id: 'r1', workspace: '/ws', projectDir: '/p' } },
    );
    const b = started.find((s) => s.step === 'b')!;
    expect(b.env).toMatchObject({
      NEO_INPUT_TARGET: 'npm test',
      NEO_STEP_A_WORD: 'yes',
      NEO_STEP_A_OBJ: '{"k":1}',
      NEO_STEP_A_STATUS: 'succeeded',
      T: 'yes!',
      GREETING: 'hi npm test',
      NEO_RUN_ID: 'r1',
    });
    expect(started.find((s) => s.step === 'a')!.env.NEO_STEP_B_STATUS).toBeUndefined();
  });

  it('interrupts live executions, then a resume re-runs only what had not finished', async () => {
    const plan = compileYaml(`
name: resume
steps:
  - { id: a, run: "true" }
  - { id: b, run: "sleep", needs: [a] }
  - { id: c, run: "true", needs: [b] }
`);
    let stopped = false;
    const execute = (spec: ExecutionSpec, signal: AbortSignal): Promise<ExecutionOutcome> =>
      spec.step === 'b'
        ? new Promise((resolve) =>
            signal.addEventListener('abort', () => {
              stopped = true;
              resolve({ exec: spec.exec, status: 'failed', outputs: {} });
            }),
          )
        : Promise.resolve({ exec: spec.exec, status: 'succeeded', outputs: {} });
    const events: RunEvent[] = [];
    const loop = createRunLoop({
      plan,
      state: initialRunState('r', ['a', 'b', 'c']),
      boot: { type: 'start', inputs: {}, run: { id: 'r', workspace: '/w', projectDir: '/p' } },
      now: tick,
      execute,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'step.started' && event.step === 'b')
          queueMicrotask(() => loop.send({ type: 'interrupt', reason: 'Ctrl-C' }));
      },
    });
    loop.start();
    const first = await loop.done;
    expect(stopped).toBe(true);
    expect(first.status).toBe('interrupted');
    expect(trace(events).slice(-1)).toEqual(['run.interrupted']);

    const rebuilt = replay(initialRunState('r', ['a', 'b', 'c']), events);
    expect(rebuilt).toEqual(first);
    const second = await runPlan(plan, succeed, { type: 'resume', rerun: [] }, rebuilt);
    expect(second.started.map((s) => s.step)).toEqual(['b', 'c']);
    expect(second.events[0]!.seq).toBe(events.length + 1);
    expect(second.state.status).toBe('succeeded');
    const rerun = await runPlan(plan, succeed, { type: 'resume', rerun: ['b'] }, second.state);
    expect(rerun.started.map((s) => s.step)).toEqual(['b', 'c']);
  });
});
