/**
 * The flow engine's one agent-step driver: every agent step is a drive of the persona flow
 * machine. A step naming a DRIVER persona is driven by that persona (its deciders, constraints,
 * sweep and outcome records); every other step — a non-driver persona as the driven agent's
 * role, or no persona — by the step's own rules (step-rules.ts). Around either drive the step
 * adds what only a flow has: the baseline run of its gate, the run's budget, its idle timeout,
 * its live figures, and its acceptance checks (a required change, an output schema).
 * The contract's types are in step-contract.ts.
 */
import type { DotenvLayers } from '../agent/index.js';
import type { DefinitionSet } from '../definitions/index.js';
import type { MetricsSink } from '../observability/index.js';
import { NeoError, UsageError } from '../util/errors.js';
import type { Refusal } from './actors.js';
import type { Checker } from './check.js';
import { checkResultText, VERDICT_CODES } from './decisions.js';
import type { PersonaRunResult } from './drive.js';
import type { DriverAgentFactory } from './llm-decider.js';
import { loadPersona } from './load-persona.js';
import { checkOutputSchema } from './output-schema.js';
import { runPersona } from './run-persona.js';
import type { FlowAgentContext, FlowAgentTask, FlowStepOutcome, StepError, StepSettings } from './step-contract.js';
import { driveStepRules } from './step-rules.js';
import { StepWatch } from './step-watch.js';
import { defined } from '../util/defined.js';

export interface PersonaStepDriverOptions {
  home: string;
  /** The definition set the run pinned. */
  definitions: () => DefinitionSet;
  /** The llm decider's agent (tests); default: neo's own agent from neo.yaml. */
  agent?: DriverAgentFactory;
  /** The `.env` files the run read when it started, for that default agent. */
  dotenv?: DotenvLayers;
  /** Dispatch and settle metrics of the driver personas it runs. */
  metrics?: MetricsSink;
}

/** What the step found before and after its drive, for its outputs. */
interface Evidence {
  baseline?: { passed: boolean; exitCode: number | undefined };
  json?: unknown;
  budget?: StepError;
}

export class PersonaStepDriver {
  readonly #o: PersonaStepDriverOptions;

  constructor(options: PersonaStepDriverOptions) {
    this.#o = options;
  }

  async drive(task: FlowAgentTask, ctx: FlowAgentContext): Promise<FlowStepOutcome> {
    const port = ctx.sessions;
    const s = task.settings;
    const gate = s.verify;
    const evidence: Evidence = {};
    const watch = new StepWatch(ctx, task.idleTimeoutMs);
    try {
      if (gate?.baseline === true) {
        watch.pause();
        const run = await ctx.runGate(gate);
        evidence.baseline = { passed: run.passed, exitCode: run.exitCode };
      }
      if (ctx.signal.aborted) return failed(abortError(ctx.signal), {});
      const over = ctx.budget();
      if (over !== undefined) return failed(over, {});

      const checker: Checker | undefined =
        gate === undefined
          ? undefined
          : {
              command: gate.run,
              maxAttempts: gate.attempts,
              run: async () => {
                const run = await ctx.runGate(gate);
                return {
                  command: gate.run,
                  passed: run.passed,
                  ...defined({ exitCode: run.exitCode, unreported: run.unreported }),
                  timedOut: run.timedOut,
                  tail: run.tail,
                  ...(run.flaky ? { flaky: true } : {}),
                  durationMs: run.durationMs,
                };
              },
            };
      const common = {
        brief: task.brief,
        cwd: task.cwd,
        sessions: port,
        runId: task.runId,
        ...defined({ checker }),
        ...(s.script === undefined ? {} : { backendOptions: { script: s.script } }),
        signal: watch.signal,
        observe: watch.observe.bind(watch),
        mayContinue: () => {
          evidence.budget = ctx.budget();
          return evidence.budget?.message;
        },
        accept: (text: string) => acceptance(s, ctx, text, evidence),
      };
      const set = this.#o.definitions();
      const persona = s.persona === undefined ? undefined : set.get('persona', s.persona);
      let result: PersonaRunResult;
      if (persona?.data.driver === true) {
        const stepLabel = `${task.step}${task.item === undefined ? '' : `[${task.item}]`}`;
        result = await runPersona({
          ...common,
          home: this.#o.home,
          set,
          persona: loadPersona(set, s.persona),
          // Only the step's gate judges a flow step (a driver persona's verify is compiled into
          // it): never runPersona's default checker, which runs in neo's process, unconfined.
          checker: checker ?? null,
          scope: `persona:${task.runId}:${task.exec}`,
          questionPrefix: `${stepLabel}-`,
          caller: {
            source: `step ${task.step}`,
            knobs: {
              maxPosture: s.maxPosture,
              initialPosture: s.initialPosture,
              ...defined({ maxRounds: s.maxRounds, backend: s.backend, allowedTools: s.allowedTools }),
            },
            backendOverride: s.provenance.backend === '--backend',
          },
          taskTags: s.taskTags,
          ...defined({
            agentModel: s.model,
            effort: s.effort,
            agent: this.#o.agent,
            dotenv: this.#o.dotenv,
            metrics: this.#o.metrics,
          }),
        });
      } else {
        result = await driveStepRules({ ...common, home: this.#o.home, scope: `flow:${task.runId}:${task.exec}` }, s);
      }
      return outcomeOf(result, { task, watch, signal: ctx.signal, evidence, driver: persona?.data.driver === true });
    } catch (error) {
      return failed(thrownError(error), {});
    } finally {
      watch.close();
    }
  }
}

/**
 * The step's last word on work its drive judged done: a step that must change files changed
 * some, and an answer that must match a schema does (its JSON becomes the step's `json`).
 */
async function acceptance(
  s: StepSettings,
  ctx: FlowAgentContext,
  text: string,
  evidence: Evidence,
): Promise<Refusal | undefined> {
  if (s.requireChange) {
    let changed: number;
    try {
      changed = (await ctx.stepDiff()).files.length;
    } catch (error) {
      return {
        code: 'FLOW_DIFF_FAILED',
        message: `could not measure the step's change: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    if (changed === 0)
      return {
        code: 'FLOW_NO_CHANGE',
        message:
          'the agent changed no file, and this step requires a change (set requireChange: false for review-only steps)',
      };
  }
  if (s.outputSchema !== undefined) {
    const checked = await checkOutputSchema(text, s.outputSchema);
    if (!checked.ok) return { code: 'FLOW_OUTPUT_SCHEMA', message: checked.message };
    evidence.json = checked.value;
  }
  return undefined;
}

/** The flow's code for each verdict code of the machine; others (a provider's, FLOW_*) pass as they are. */
const FLOW_CODES: Readonly<Record<string, string>> = {
  [VERDICT_CODES.checkFailed]: 'FLOW_GATE_FAILED',
  [VERDICT_CODES.maxRounds]: 'FLOW_MAX_ROUNDS',
  [VERDICT_CODES.agentFailed]: 'FLOW_AGENT_FAILED',
  [VERDICT_CODES.agentError]: 'FLOW_AGENT_ERROR',
  [VERDICT_CODES.stalled]: 'FLOW_STEP_STALLED',
};

function outcomeOf(
  result: PersonaRunResult,
  o: { task: FlowAgentTask; watch: StepWatch; signal: AbortSignal; evidence: Evidence; driver: boolean },
): FlowStepOutcome {
  const v = result.verdict;
  const check = result.outcome.check;
  const gate = o.task.settings.verify;
  const outputs: Record<string, unknown> = {
    text: result.outcome.text,
    verdict: v.outcome,
    note: v.note,
    ...(o.driver ? { persona: o.task.settings.persona } : {}),
    backend: result.session?.backend,
    ...defined({ model: result.model }),
    sessionId: result.session?.sessionId,
    rounds: o.watch.rounds,
    costUsd: o.watch.costUsd,
    ...defined({ baseline: o.evidence.baseline }),
    ...(check === undefined
      ? {}
      : {
          gate: {
            command: check.command,
            passed: check.passed,
            exitCode: check.exitCode ?? null,
            attempt: result.outcome.checkRuns,
            attempts: gate?.attempts ?? result.outcome.checkRuns,
            ...(check.flaky ? { flaky: true } : {}),
            ...(check.timedOut ? { timedOut: true } : {}),
            ...defined({ unreported: check.unreported }),
            tail: check.tail,
          },
        }),
  };
  if (v.outcome === 'success') {
    const json = defined({ json: o.evidence.json });
    return { status: 'succeeded', verdict: 'success', outputs: { ...outputs, verdict: 'success', ...json } };
  }
  if (o.watch.stalled) return failed(stalledError(o.watch.idleMs), outputs, 'stalled');
  if (o.signal.aborted) return failed(abortError(o.signal), outputs, 'aborted');
  if (o.evidence.budget !== undefined && v.outcome === 'aborted') return failed(o.evidence.budget, outputs);
  const agentCode = FLOW_CODES[v.code ?? ''] ?? v.code ?? `PERSONA_${v.outcome.toUpperCase()}`;
  // The gate's verdict is the truth of the step: an agent that cannot go on after a failed gate
  // (a script with no turn left, a CLI that errors) leaves the step failed as the gate failed.
  const gateFailed = agentCode === 'FLOW_AGENT_ERROR' && check !== undefined && !check.passed;
  const code = gateFailed ? 'FLOW_GATE_FAILED' : agentCode;
  const preexisting =
    code === 'FLOW_GATE_FAILED' && o.evidence.baseline?.passed === false
      ? '; it already failed before the agent started'
      : '';
  // A refused start keeps the session service's hint (how to install the CLI, which backend to pin).
  const hint = result.outcome.rejections.findLast((r) => r.code === code)?.hint;
  const reason = v.failureReason ?? v.note;
  const error: StepError = {
    code,
    message: gateFailed
      ? `the check \`${check.command}\` fails (${checkResultText(check)}); then ${reason}${preexisting}`
      : `${reason}${preexisting}`,
    ...(hint === undefined || result.session !== undefined ? {} : { hint }),
    ...(v.transient === true && !gateFailed ? { transient: true } : {}),
  };
  const verdict = code === 'FLOW_STEP_STALLED' ? 'stalled' : code === 'FLOW_NO_CHANGE' ? 'no-change' : 'failed';
  return failed(error, outputs, verdict);
}

function failed(error: StepError, outputs: Record<string, unknown>, verdict = 'failed'): FlowStepOutcome {
  return { status: 'failed', verdict, error, outputs: { ...outputs, verdict } };
}

function stalledError(idleMs: number | undefined): StepError {
  const after = idleMs === undefined ? 'its idle timeout' : `${Math.round(idleMs / 100) / 10}s`;
  return { code: 'FLOW_STEP_STALLED', message: `the agent sent no event for ${after}: stalled`, transient: true };
}

function abortError(signal: AbortSignal): StepError {
  const reason = signal.reason as Partial<StepError> | undefined;
  if (reason !== undefined && typeof reason.code === 'string')
    return { code: reason.code, message: reason.message ?? reason.code };
  return { code: 'FLOW_INTERRUPTED', message: 'interrupted' };
}

/** An error a drive threw (a persona that cannot be dispatched, a broken definition). */
function thrownError(error: unknown): StepError {
  if (error instanceof NeoError)
    return {
      code: error.code,
      message: error.message,
      ...defined({ hint: error.hint }),
      ...(error instanceof UsageError ? {} : { transient: true }),
    };
  return { code: 'PERSONA_FAILED', message: error instanceof Error ? error.message : String(error), transient: true };
}
