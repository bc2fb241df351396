import { describe, expect, it } from 'vitest';
import { advance, type RunInput } from '../../../engine/flow/core/advance.js';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import type { ExecutionOutcome, ExecutionSpec } from '../../../engine/flow/core/execution.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import { initialRunState, type RunState } from '../../../engine/flow/core/state.js';
import { compileYaml } from './helpers.js';

/** A small seeded generator (mulberry32): the same seed, the same plan and the same outcomes. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random plan: needs on earlier steps, joins, conditions, foreach, retries, loops, approvals, finally. */
function randomPlan(rand: () => number): CompiledPlan {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const count = 3 + Math.floor(rand() * 30);
  const steps: string[] = [];
  for (let i = 0; i < count; i++) {
    const needs = [...new Set(Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * i)))]
      .filter((n) => n < i)
      .map((n) => `s${n}`);
    const parts = [`id: s${i}`];
    if (rand() < 0.1) parts.push('approval: { prompt: ok? }');
    else parts.push('run: "true"');
    if (needs.length > 0) parts.push(`needs: [${needs.join(', ')}]`);
    if (needs.length > 0 && rand() < 0.3) parts.push(`join: ${pick(['all_success', 'one_success', 'all_done'])}`);
    if (rand() < 0.15) parts.push(`if: "inputs.go"`);
    if (rand() < 0.15 && !parts.some((p) => p.startsWith('approval')))
      parts.push(`foreach: { items: [1, 2, 3, 4], maxParallel: ${1 + Math.floor(rand() * 3)} }`);
    else if (rand() < 0.15 && !parts.some((p) => p.startsWith('approval')))
      parts.push('retry: { attempts: 3, on: any, backoffMs: 0 }');
    else if (rand() < 0.1 && !parts.some((p) => p.startsWith('approval')))
      parts.push('loop: { maxIterations: 3, untilRun: "true" }');
    if (rand() < 0.2) parts.push('continueOnError: true');
    steps.push(`  - { ${parts.join(', ')} }`);
  }
  const fin =
    rand() < 0.4
      ? '\nfinally:\n  - { id: cleanup, run: "true" }\n  - { id: report, run: "true", needs: [cleanup] }'
      : '';
  return compileYaml(
    `name: random\ninputs: { go: { type: boolean, default: ${rand() < 0.5} } }\ndefaults: { maxParallel: ${1 + Math.floor(rand() * 4)} }\nsteps:\n${steps.join('\n')}${fin}\n`,
  );
}

/**
 * Drives a plan through `advance` alone, completing one live execution at a time in an order the
 * seed picks, with outcomes the seed picks. `fresh` hands each transition a copy of the state, so
 * the frontier is computed afresh every time instead of taken over from the transition before.
 */
function drive(plan: CompiledPlan, seed: number, fresh: boolean): { events: RunEvent[]; state: RunState } {
  const rand = random(seed);
  let state = initialRunState(
    'r1',
    plan.steps.map((s) => s.id),
  );
  let at = Date.parse('2026-01-01T00:00:00.000Z');
  const events: RunEvent[] = [];
  const live: ExecutionSpec[] = [];
  const step = (input: RunInput) => {
    at += 1;
    // A copy is another state object, which no frontier was handed on with (its steps are shared: they never change).
    const t = advance(plan, fresh ? { ...state } : state, input, new Date(at).toISOString());
    state = t.state;
    events.push(...t.events);
    for (const exec of t.stop) live.splice(live.findIndex((s) => s.exec === exec) >>> 0, 1);
    live.push(...t.start);
  };
  step({ type: 'start', inputs: {}, run: { id: 'r1', workspace: '/ws', projectDir: '/project' } });
  for (let guard = 0; live.length > 0 && state.status === 'running' && guard < 500; guard++) {
    const [spec] = live.splice(Math.floor(rand() * live.length), 1);
    const roll = rand();
    const outcome: ExecutionOutcome =
      roll < 0.65
        ? { exec: spec!.exec, status: 'succeeded', outputs: { n: roll }, untilPassed: rand() < 0.5 }
        : {
            exec: spec!.exec,
            status: 'failed',
            outputs: {},
            // Now and then a budget runs out: the run stops starting main steps.
            error: { code: rand() < 0.05 ? 'FLOW_BUDGET_EXCEEDED' : 'E', message: 'x', transient: rand() < 0.5 },
          };
    step({ type: 'outcome', outcome });
    if (rand() < 0.1) step({ type: 'charge', step: spec!.step, turns: 1, tokens: 1, costUsd: 0 });
  }
  return { events, state };
}

describe('the scheduler frontier', () => {
  it('decides exactly as a frontier computed afresh at every transition (300 random plans and orders)', () => {
    let finished = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const plan = randomPlan(random(seed * 7919));
      const kept = drive(plan, seed, false);
      const fresh = drive(plan, seed, true);
      expect(kept.events).toEqual(fresh.events);
      expect(kept.state).toEqual(fresh.state);
      if (kept.state.status !== 'running') finished++;
    }
    // The random plans and outcomes must reach the end of most runs, or the test proves little.
    expect(finished).toBeGreaterThan(250);
  });
});
