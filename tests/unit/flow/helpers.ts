import { parse } from 'yaml';
import { narrowKnobs, type Flow } from '../../../engine/definitions/index.js';
import { compilePlan } from '../../../engine/flow/core/compile.js';
import type { CompileOptions } from '../../../engine/flow/core/compile-types.js';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import type { ExecutionOutcome, ExecutionSpec } from '../../../engine/flow/core/execution.js';
import type { PlanLookup } from '../../../engine/flow/core/lookup.js';
import { createRunLoop } from '../../../engine/flow/core/run-loop.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import { initialRunState, type RunState } from '../../../engine/flow/core/state.js';
import type { RunInput } from '../../../engine/flow/core/advance.js';

/** A lookup with one script backend and the personas given. */
export function testLookup(extra: Partial<PlanLookup> = {}): PlanLookup {
  return {
    persona: () => undefined,
    policy: () => undefined,
    backend: (id) =>
      id === 'script' || id === 'other'
        ? {
            id,
            editToolNames: ['write', 'edit'],
            honorsAllowedTools: id === 'other',
            protocol: id === 'script' ? 'script' : 'acp',
          }
        : undefined,
    backendIds: () => ['other', 'script'],
    narrow: (layers) => narrowKnobs(layers),
    resolve: (relative) => `/project/${relative}`,
    projectDir: '/project',
    ...extra,
  };
}

/** Compiles a YAML flow; throws on compile problems unless `allowProblems`. */
export function compileYaml(text: string, options: CompileOptions = {}, lookup = testLookup()): CompiledPlan {
  const { plan, problems } = compilePlan(parse(text) as Flow, '/project/plan.yaml', lookup, options);
  if (problems.length > 0) throw new Error(problems.map((p) => `${p.code}: ${p.message}`).join('\n'));
  return plan;
}

export type FakeExecutor = (
  spec: ExecutionSpec,
) => Promise<Omit<ExecutionOutcome, 'exec'>> | Omit<ExecutionOutcome, 'exec'>;

/** Succeeds with `{ ran: <step> }`. */
export const succeed: FakeExecutor = (spec) => ({ status: 'succeeded', outputs: { ran: spec.step } });

let clock = Date.parse('2026-01-01T00:00:00.000Z');
/** A deterministic clock: each call is 1 ms later. */
export function tick(): string {
  clock += 1;
  return new Date(clock).toISOString();
}

/** Runs a plan through the real run loop with a fake executor; resolves with its events and state. */
export async function runPlan(
  plan: CompiledPlan,
  executor: FakeExecutor,
  boot?: Extract<RunInput, { type: 'start' | 'resume' }>,
  state?: RunState,
): Promise<{ events: RunEvent[]; state: RunState; started: ExecutionSpec[] }> {
  const started: ExecutionSpec[] = [];
  const events: RunEvent[] = [];
  const loop = createRunLoop({
    plan,
    state:
      state ??
      initialRunState(
        'r1',
        plan.steps.map((s) => s.id),
      ),
    boot: boot ?? { type: 'start', inputs: {}, run: { id: 'r1', workspace: '/ws', projectDir: '/project' } },
    now: tick,
    execute: async (spec) => {
      started.push(spec);
      return { exec: spec.exec, ...(await executor(spec)) };
    },
    onEvent: (event) => events.push(event),
  });
  loop.start();
  const final = await loop.done;
  return { events, state: final, started };
}

/** The event types with their step (and item), for compact assertions. */
export function trace(events: readonly RunEvent[]): string[] {
  return events.map((e) => {
    const step = 'step' in e ? ` ${e.step}${'item' in e && e.item !== undefined ? `[${e.item}]` : ''}` : '';
    const status =
      e.type === 'step.completed' || e.type === 'run.finished'
        ? ` ${e.status}`
        : e.type === 'step.skipped'
          ? ` (${e.reason})`
          : '';
    return `${e.type}${step}${status}`;
  });
}
