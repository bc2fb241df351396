/**
 * The flow engine's agent-step driver, persona side. A step naming a DRIVER persona is driven by
 * that persona's flow machine (its deciders, its constraints, its sweep, its outcome records);
 * every other step — a non-driver persona as the driven agent's role, or no persona — goes to
 * the flow's built-in rules driver unchanged.
 *
 * The flow engine depends on this layer, not the reverse, so the types here mirror the flow's
 * AgentStepDriver contract structurally (engine/flow/agent/driver.ts) instead of importing it.
 */
import type { DefinitionSet, Effort, Posture } from '../definitions/index.js';
import type { MetricsSink } from '../observability/index.js';
import { TurnUsage } from '../session/index.js';
import type { PersonaSessionPort } from './actors.js';
import type { Checker } from './check.js';
import type { CheckResult } from './decisions.js';
import type { DriverAgentFactory } from './llm-decider.js';
import { loadPersona } from './load-persona.js';
import type { PersonaObservation } from './observation.js';
import { runPersona, type PersonaRunResult } from './run-persona.js';

interface StepError {
  code: string;
  message: string;
  transient?: boolean;
}

/** The flow's agent task, as far as a persona reads it. */
export interface FlowAgentTask {
  runId: string;
  step: string;
  item?: number;
  exec: string;
  settings: {
    persona?: string;
    backend?: string;
    model?: string;
    effort?: Effort;
    maxPosture: Posture;
    initialPosture: Posture;
    maxRounds?: number;
    allowedTools?: string[];
    script?: string;
    taskTags: string[];
    verify?: { run: string; attempts: number; flakeCheck: boolean; baseline: boolean; timeoutMs?: number };
    provenance: Record<string, string>;
  };
  brief: string;
  cwd: string;
  idleTimeoutMs?: number;
}

/** The flow's agent context, as far as a persona uses it. */
export interface FlowAgentContext {
  sessions: Pick<PersonaSessionPort, 'execute' | 'onSessionEvent' | 'releaseAllOwnedBy'> &
    Partial<Pick<PersonaSessionPort, 'setScopeConstraints'>>;
  signal: AbortSignal;
  budget(): StepError | undefined;
  charge(cost: { turns: number; tokens: number; costUsd: number }): void;
  progress(update: {
    backend?: string;
    model?: string;
    round?: number;
    maxRounds?: number;
    tool?: string;
    filesChanged?: number;
    costUsd?: number;
    note?: string;
  }): void;
  runGate(gate: NonNullable<FlowAgentTask['settings']['verify']>): Promise<{
    passed: boolean;
    exitCode: number | undefined;
    tail: string;
    timedOut: boolean;
    flaky?: boolean;
    durationMs: number;
  }>;
  now(): number;
}

export interface FlowStepOutcome {
  status: 'succeeded' | 'failed';
  outputs: Record<string, unknown>;
  verdict?: string;
  error?: StepError;
}

/** The flow's built-in driver, for steps a persona does not drive. */
export interface FallbackStepDriver {
  drive(task: FlowAgentTask, context: FlowAgentContext): Promise<FlowStepOutcome>;
}

export interface PersonaStepDriverOptions {
  home: string;
  /** The definition set the run pinned. */
  definitions: () => DefinitionSet;
  fallback: FallbackStepDriver;
  /** The llm decider's agent (tests); default: neo's own agent from neo.yaml. */
  agent?: DriverAgentFactory;
  /** Dispatch and settle metrics of the personas it runs. */
  metrics?: MetricsSink;
}

export class PersonaStepDriver {
  readonly #o: PersonaStepDriverOptions;

  constructor(options: PersonaStepDriverOptions) {
    this.#o = options;
  }

  async drive(task: FlowAgentTask, ctx: FlowAgentContext): Promise<FlowStepOutcome> {
    const set = this.#o.definitions();
    const id = task.settings.persona;
    const definition = id === undefined ? undefined : set.get('persona', id);
    if (definition === undefined || definition.data.driver !== true) return this.#o.fallback.drive(task, ctx);
    const sessions = ctx.sessions;
    if (sessions.setScopeConstraints === undefined) {
      // Fail closed: a driver whose ceiling cannot be registered never starts.
      return {
        status: 'failed',
        verdict: 'failed',
        outputs: {},
        error: {
          code: 'PERSONA_NO_CONSTRAINTS',
          message:
            'the session service of this run cannot register scope constraints; a driver persona cannot run without them',
        },
      };
    }
    const s = task.settings;
    const gate = s.verify;
    const checker: Checker | undefined =
      gate === undefined
        ? undefined
        : {
            command: gate.run,
            maxAttempts: gate.attempts,
            run: async () => gateCheck(gate.run, await ctx.runGate(gate)),
          };
    const watch = new IdleWatch(ctx, task.idleTimeoutMs);
    const stepLabel = `${task.step}${task.item === undefined ? '' : `[${task.item}]`}`;
    try {
      const result = await runPersona({
        home: this.#o.home,
        set,
        persona: loadPersona(set, id),
        brief: task.brief,
        cwd: task.cwd,
        sessions: sessions as PersonaSessionPort,
        scope: `persona:${task.runId}:${task.exec}`,
        runId: task.runId,
        questionPrefix: `${stepLabel}-`,
        caller: {
          source: `step ${task.step}`,
          knobs: {
            maxPosture: s.maxPosture,
            initialPosture: s.initialPosture,
            ...(s.maxRounds === undefined ? {} : { maxRounds: s.maxRounds }),
            ...(s.backend === undefined ? {} : { backend: s.backend }),
            ...(s.allowedTools === undefined ? {} : { allowedTools: s.allowedTools }),
          },
          backendOverride: s.provenance.backend === '--backend',
        },
        taskTags: s.taskTags,
        ...(s.model === undefined ? {} : { agentModel: s.model }),
        ...(s.effort === undefined ? {} : { effort: s.effort }),
        ...(s.script === undefined ? {} : { backendOptions: { script: s.script } }),
        ...(checker === undefined ? {} : { checker }),
        signal: watch.signal,
        observe: (o) => watch.observe(o),
        mayContinue: () => ctx.budget()?.message,
        ...(this.#o.agent === undefined ? {} : { agent: this.#o.agent }),
        ...(this.#o.metrics === undefined ? {} : { metrics: this.#o.metrics }),
      });
      return outcomeOf(result, watch, ctx.signal, id!);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      return {
        status: 'failed',
        verdict: 'failed',
        outputs: {},
        error: { code: e.code ?? 'PERSONA_FAILED', message: e.message ?? String(error) },
      };
    } finally {
      watch.close();
    }
  }
}

function gateCheck(command: string, run: Awaited<ReturnType<FlowAgentContext['runGate']>>): CheckResult {
  return {
    command,
    passed: run.passed,
    ...(run.exitCode === undefined ? {} : { exitCode: run.exitCode }),
    timedOut: run.timedOut,
    tail: run.tail,
    ...(run.flaky ? { flaky: true } : {}),
    durationMs: run.durationMs,
  };
}

function outcomeOf(result: PersonaRunResult, watch: IdleWatch, signal: AbortSignal, persona: string): FlowStepOutcome {
  const v = result.verdict;
  const check = result.outcome.check;
  const outputs: Record<string, unknown> = {
    text: result.outcome.text,
    verdict: v.outcome,
    note: v.note,
    persona,
    backend: result.session?.backend,
    ...(result.model === undefined ? {} : { model: result.model }),
    sessionId: result.session?.sessionId,
    rounds: result.outcome.rounds,
    costUsd: result.costUsd,
    ...(check === undefined
      ? {}
      : {
          gate: {
            command: check.command,
            passed: check.passed,
            exitCode: check.exitCode ?? null,
            attempt: result.outcome.checkRuns,
            attempts: result.outcome.checkRuns,
            tail: check.tail,
          },
        }),
  };
  if (v.outcome === 'success') return { status: 'succeeded', verdict: 'success', outputs };
  const reason = signal.aborted ? (signal.reason as StepError | undefined) : undefined;
  const error: StepError = watch.stalled
    ? {
        code: 'FLOW_STEP_STALLED',
        message: `the agent sent no event for ${Math.round((watch.idleMs ?? 0) / 100) / 10}s: stalled`,
        transient: true,
      }
    : reason !== undefined && typeof reason.code === 'string'
      ? { code: reason.code, message: reason.message ?? reason.code }
      : { code: `PERSONA_${v.outcome.toUpperCase()}`, message: v.failureReason ?? v.note };
  return { status: 'failed', verdict: watch.stalled ? 'stalled' : v.outcome, outputs, error };
}

/**
 * Progress and ledger charges for the flow, and the step's idle (stall) timeout when the flow
 * sets one: time spent running the check or waiting for a person is not the agent being silent.
 */
class IdleWatch {
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  readonly idleMs: number | undefined;
  readonly #ctx: FlowAgentContext;
  #last: number;
  #paused = false;
  #timer: NodeJS.Timeout | undefined;
  #rounds = 0;
  #cost = 0;
  #files = new Set<string>();
  readonly #turn = new TurnUsage();
  stalled = false;

  constructor(ctx: FlowAgentContext, idleMs: number | undefined) {
    this.#ctx = ctx;
    this.idleMs = idleMs;
    this.signal = AbortSignal.any([ctx.signal, this.#controller.signal]);
    this.#last = ctx.now();
    if (idleMs !== undefined) {
      this.#timer = setInterval(
        () => {
          if (this.#paused || this.stalled || ctx.now() - this.#last < idleMs) return;
          this.stalled = true;
          this.#controller.abort({ code: 'FLOW_STEP_STALLED', message: 'stalled' });
        },
        Math.max(20, Math.min(1000, Math.floor(idleMs / 4))),
      );
      this.#timer.unref();
    }
  }

  observe(o: PersonaObservation): void {
    this.#last = this.#ctx.now();
    this.#paused = false;
    switch (o.type) {
      case 'started':
        this.#ctx.progress({ backend: o.session.backend, round: 1, maxRounds: o.session.maxRounds });
        return;
      case 'waiting':
        this.#paused = true;
        this.#ctx.progress({ note: `waiting for approval: ${o.command}` });
        return;
      case 'notice':
        if (o.message.startsWith('checking')) this.#paused = true;
        this.#ctx.progress({ note: o.message });
        return;
      case 'answered':
        this.#ctx.progress({ note: `${o.answer.allow ? 'allowed' : 'denied'} ${o.toolName}` });
        return;
      case 'turn':
        return;
      case 'agent': {
        const e = o.live.event;
        if (e.type === 'tool_use') this.#ctx.progress({ tool: e.name, round: this.#rounds + 1 });
        else if (e.type === 'started' && e.model !== undefined) this.#ctx.progress({ model: e.model });
        else if (e.type === 'turn_diff') {
          for (const f of e.diff.files) this.#files.add(f.path);
          this.#ctx.progress({ filesChanged: this.#files.size });
        } else if (e.type === 'usage') {
          // A model call inside the turn: charged now, so a budget can stop the turn it crosses.
          const spent = this.#turn.during(e);
          this.#cost += spent.costUsd;
          this.#ctx.charge({ turns: 0, ...spent });
          this.#ctx.progress({ costUsd: this.#cost });
        } else if (e.type === 'turn_complete' || e.type === 'ended') {
          // An `ended` that closes a turn carries that turn's figures (numTurns says so).
          const turns = e.type === 'turn_complete' || e.numTurns !== undefined ? 1 : 0;
          const spent = this.#turn.end(e);
          this.#rounds += turns;
          this.#cost += spent.costUsd;
          this.#ctx.charge({ turns, ...spent });
          this.#ctx.progress({ round: this.#rounds, costUsd: this.#cost });
        } else if (e.type === 'error' && e.transient !== true) {
          this.#turn.reset();
        }
        return;
      }
      default:
        return;
    }
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
