import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { persisted, project, run, trace } from './helpers.js';

describe('run steps (real commands)', () => {
  it('passes inputs and outputs only through the environment, and reads $NEO_OUTPUT', async () => {
    const { dir, home } = await project({
      'plan.yaml': `
name: env
inputs: { who: { default: "x; rm -rf /" } }
steps:
  - id: a
    run: 'printf "%s" "$NEO_INPUT_WHO" > who.txt; echo "count=3" >> "$NEO_OUTPUT"'
  - id: b
    needs: [a]
    run: 'printf "%s/%s" "$N" "$NEO_STEP_A_COUNT" > out.txt'
    env: { N: "\${{ steps.a.outputs.count }}" }
`,
    });
    const { outcome } = await run(dir, home);
    expect(outcome.status).toBe('succeeded');
    const ws = outcome.record.workspace!.path;
    expect(await readFile(join(ws, 'who.txt'), 'utf8')).toBe('x; rm -rf /');
    expect(await readFile(join(ws, 'out.txt'), 'utf8')).toBe('3/3');
    expect(outcome.state.steps.get('a')!.outputs).toMatchObject({ exitCode: 0, count: '3' });
  });

  it('fails a command with its exit code and stderr tail, skips dependents, and persists gapless events', async () => {
    const { dir, home } = await project({
      'plan.yaml': `
name: fail
steps:
  - { id: bad, run: 'echo nope >&2; exit 3' }
  - { id: after, run: 'true', needs: [bad] }
`,
    });
    const { outcome, events } = await run(dir, home);
    expect(outcome.status).toBe('failed');
    expect(outcome.state.steps.get('bad')!.error).toEqual({
      code: 'FLOW_COMMAND_FAILED',
      message: '`echo nope >&2; exit 3` exited 3: nope',
    });
    expect(trace(events)).toEqual([
      'run.started',
      'step.started bad',
      'step.completed bad failed',
      'step.skipped after (join)',
      'run.finished failed',
    ]);
    const onDisk = await persisted(home, outcome.runId);
    expect(onDisk).toEqual(events);
    expect(onDisk.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('kills a command past its timeout (the whole process group) and one silent past its idle timeout', async () => {
    const { dir, home } = await project({
      'plan.yaml': `
name: limits
steps:
  - { id: slow, run: 'sleep 30 & wait', timeout: 300ms }
  - { id: quiet, run: 'echo start; sleep 30', idleTimeout: 300ms }
`,
    });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('slow')!.error?.code).toBe('FLOW_STEP_TIMEOUT');
    expect(outcome.state.steps.get('quiet')!.error).toEqual({
      code: 'FLOW_STEP_STALLED',
      message: '`echo start; sleep 30` wrote nothing for its idle timeout and was killed: stalled',
      transient: true,
    });
  });

  it('retries with on: any until a flaky command passes, and loops until a command passes', async () => {
    const { dir, home } = await project({
      'plan.yaml': `
name: again
steps:
  - id: flaky
    run: 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ $n -ge 3 ]'
    retry: { attempts: 3, backoff: 10ms, on: any }
  - id: poll
    run: 'echo x >> polls'
    loop: { untilRun: '[ $(wc -l < polls) -ge 2 ]', maxIterations: 5 }
`,
    });
    const { outcome, events } = await run(dir, home);
    expect(outcome.status).toBe('succeeded');
    expect(
      events
        .filter((e) => e.type === 'step.retrying')
        .map((e) => (e.type === 'step.retrying' ? [e.attempt, e.delayMs] : [])),
    ).toEqual([
      [2, 10],
      [3, 20],
    ]);
    expect(outcome.state.steps.get('poll')!.outputs).toMatchObject({ iterations: 2 });
  });

  it('fans out over a list from an earlier step, and a sub-flow runs as its own run with its own inputs', async () => {
    const { dir, home } = await project({
      'plan.yaml': `
name: parent
steps:
  - { id: list, run: 'echo "items=[\\"a\\",\\"b\\",\\"c\\"]" >> "$NEO_OUTPUT"' }
  - id: each
    needs: [list]
    run: 'echo "$NEO_ITEM" > "item-$NEO_ITEM_INDEX.txt"'
    foreach: { items: "\${{ fromJSON(steps.list.outputs.items) }}", maxParallel: 2 }
  - id: child
    needs: [each]
    flow: child.flow.yaml
    inputs: { n: "\${{ steps.each.outputs.count }}" }
`,
      'child.flow.yaml': `
name: child
inputs: { n: { type: number } }
steps:
  - { id: write, run: 'echo "child saw $NEO_INPUT_N" > child.txt' }
`,
    });
    const { outcome, seen } = await run(dir, home);
    expect(outcome.status).toBe('succeeded');
    const ws = outcome.record.workspace!.path;
    expect(await readFile(join(ws, 'item-2.txt'), 'utf8')).toBe('c\n');
    expect(await readFile(join(ws, 'child.txt'), 'utf8')).toBe('child saw 3\n');
    const childRun = seen.find((o) => o.type === 'run' && o.depth === 1);
    expect(childRun?.runId).toBe(`${outcome.runId}.child.1-1`);
    const child = JSON.parse(await readFile(join(home, 'runs', childRun!.runId, 'run.json'), 'utf8'));
    expect(child).toMatchObject({
      flow: 'child',
      status: 'succeeded',
      inputs: { n: 3 },
      parent: { runId: outcome.runId, step: 'child' },
    });
    expect(outcome.state.steps.get('child')!.outputs).toMatchObject({ runId: childRun!.runId, status: 'succeeded' });
  });

  it('refuses bad inputs before anything runs', async () => {
    const { dir, home } = await project({
      'plan.yaml': 'name: i\ninputs: { count: { type: number } }\nsteps: [ { id: a, run: "true" } ]\n',
    });
    await expect(run(dir, home, { inputs: { count: 'many' }, textInputs: new Set(['count']) })).rejects.toMatchObject({
      code: 'FLOW_INPUT_TYPE',
      message: 'input `count` must be a number, got "many"',
    });
    await expect(run(dir, home, { inputs: { cont: '1' }, textInputs: new Set(['cont']) })).rejects.toMatchObject({
      code: 'FLOW_INPUT_UNKNOWN',
      hint: 'did you mean `count`?',
    });
    await expect(run(dir, home)).rejects.toMatchObject({ code: 'FLOW_INPUT_MISSING' });
  });
});
