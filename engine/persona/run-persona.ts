/**
 * Dispatching one persona (seed 004 §2): constraints in, the persona flow machine, sweep out.
 *
 * 1. The persona's knobs (policy → frontmatter → caller → owner cap) are registered as the
 *    scope's constraints BEFORE anything starts: whatever the decider asks for, the session
 *    service rejects a start above them.
 * 2. The machine runs with the decider the persona names (rules, llm, human).
 * 3. On settle — success, failure, abort or a thrown error — every session the scope opened is
 *    released and its constraints cleared; no subprocess outlives the persona. There is no
 *    wall-clock timeout here: only an abort (Ctrl-C, a flow's own timeout) ends a driver early.
 * 4. One outcome record per session the persona drove is appended to the learning log.
 */
import { randomBytes } from 'node:crypto';
import { createActor, toPromise } from 'xstate';
import { personaDenyRules, type Budgets, type DefinitionSet, type Effort } from '../definitions/index.js';
import {
  recordScopeOutcomes,
  trackRecords,
  type HarnessOutcomeRecord,
  type SessionRecordSource,
} from '../learning/index.js';
import { guardedMetrics, SESSION_METRICS, SPECIALIST_METRICS, type MetricsSink } from '../observability/index.js';
import { CodeSessionStore, type SessionLiveEvent, type TurnDiff } from '../session/index.js';
import { personaActors, type PersonaSessionPort } from './actors.js';
import { commandChecker, type Checker } from './check.js';
import { rulesWithDefaults } from '../posture/index.js';
import type { Decider, SessionInfo, Verdict } from './decisions.js';
import { dispatchKnobs, type DispatchCaller } from './dispatch.js';
import type { DriverAgentFactory } from './llm-decider.js';
import type { LoadedPersona } from './load-persona.js';
import { personaMachine, type PersonaOutcome } from './machine.js';
import { makeDecider } from './make-decider.js';
import type { PersonaObserver } from './observation.js';
import type { HumanAsker, TerminalAsk } from './questions.js';

/** Events of a session kept until the dispatch knows it is its own (a start's first turn). */
const EARLY_EVENTS_MAX = 500;
export interface RunPersonaOptions {
  /** NEO_HOME. */
  home: string;
  set: DefinitionSet;
  persona: LoadedPersona;
  brief: string;
  /** Where the driven agent works (absolute). */
  cwd: string;
  sessions: PersonaSessionPort;
  /** The ownership scope, unique per dispatch (default: `persona:<id>:<random>`). */
  scope?: string;
  /** The run questions are filed under (`neo flow approve <runId> <key>`); default: the scope's id part. */
  runId?: string;
  /** Prefixes question keys (a flow step's id), so they are unique in the run. */
  questionPrefix?: string;
  /** Reads released sessions for the outcome records (default: NEO_HOME's store). */
  store?: SessionRecordSource;
  caller?: DispatchCaller;
  taskTags?: string[];
  /** The caller's explicit model (id or class) and effort: they win over routing advice. */
  agentModel?: string;
  effort?: Effort;
  backendOptions?: Record<string, unknown>;
  /** Decides the verdict; default: the persona's `rules.verify`; null: no check at all. */
  checker?: Checker | null;
  /** Replaces the decider the persona names (tests, embedding). */
  decider?: Decider;
  /** Where a human decider (or a rules `ask`) asks; default: pending questions in NEO_HOME. */
  human?: HumanAsker;
  /** A terminal to ask at, raced with the pending question. */
  terminal?: TerminalAsk;
  /** Builds the llm decider's agent; default: neo's own agent from neo.yaml. */
  agent?: DriverAgentFactory;
  signal?: AbortSignal;
  observe?: PersonaObserver;
  /** Asked before each guidance: a reason to stop instead (a flow's budget is spent). */
  mayContinue?: () => string | undefined;
  /** Append outcome records (default true). */
  record?: boolean;
  /** Starts to try before giving up (default 3). */
  maxStartAttempts?: number;
  env?: NodeJS.ProcessEnv;
  /** Dispatch and settle metrics (seed 004 §8); none: no-op. */
  metrics?: MetricsSink;
  /**
   * A supervised resume (seed 004 §5): the first session this persona starts adopts this record
   * (same id, gapless seq) instead of minting one. One-shot: once adopted, later starts mint.
   */
  adoptRecordId?: string;
}

export interface PersonaRunResult {
  verdict: Verdict;
  outcome: PersonaOutcome;
  scope: string;
  runId: string;
  /** Sessions this dispatch opened. */
  sessionIds: string[];
  session?: SessionInfo;
  /** The concrete model the last session ran on, when known. */
  model?: string;
  /** One outcome record per session, when recording. */
  records: HarnessOutcomeRecord[];
  costUsd: number;
  tokens: number;
  /** Every turn's diff, in order. */
  diffs: TurnDiff[];
}

export async function runPersona(o: RunPersonaOptions): Promise<PersonaRunResult> {
  const observe: PersonaObserver = o.observe ?? (() => {});
  const view = o.persona.view;
  const token = randomBytes(6).toString('hex');
  const scope = o.scope ?? `persona:${view.id}:${token}`;
  const runId = o.runId ?? `persona-${view.id}-${token}`;
  const signal = o.signal ?? new AbortController().signal;
  const dispatch = dispatchKnobs(o.set, o.persona.definition, o.caller);
  // A non-driver persona is the driven agent's role, under the default rules and its own denies
  // (a deny only narrows: it holds for a driver demoted because its project is not trusted).
  const denies = view.driver ? [] : personaDenyRules(o.set, o.persona.definition);
  const defaults = rulesWithDefaults(undefined);
  const rules = view.driver
    ? rulesWithDefaults(o.persona.definition.data.rules)
    : denies.length === 0
      ? defaults
      : { ...defaults, clarify: [...denies, ...(defaults.clarify ?? [])] };
  const checker =
    o.checker === null
      ? undefined
      : (o.checker ??
        (rules.verify === undefined
          ? undefined
          : commandChecker(rules.verify, { cwd: o.cwd, ...(o.env === undefined ? {} : { env: o.env }) })));
  const taskTags = [...new Set([...view.taskTags, ...(o.taskTags ?? [])])];
  const appendSystemPrompt = view.driver || view.instructions === '' ? undefined : view.instructions;

  const opened: SessionInfo[] = [];
  const created = new Set<string>();
  const failureReasons = new Map<string, string>();
  const diffs: TurnDiff[] = [];
  const meter = { costUsd: 0, tokens: 0, turns: 0, model: undefined as string | undefined };
  // The persona's own model is the driven agent's only for a role persona (a driver's is its own).
  const agentModel = o.agentModel ?? (view.driver ? undefined : view.model);
  const effort = o.effort ?? o.persona.definition.data.effort;
  const budgets = dispatch.knobs.budgets;
  const mayContinue = () => o.mayContinue?.() ?? budgetSpent(budgets, meter);
  const metrics = guardedMetrics(o.metrics);
  const sessions = o.adoptRecordId === undefined ? o.sessions : adoptingOnce(o.sessions, o.adoptRecordId);
  const dispatchedAt = Date.now();
  metrics.increment(SPECIALIST_METRICS.dispatched, { backend: dispatch.constraints.backend ?? 'auto' });
  const deliver = (live: SessionLiveEvent) => {
    meterEvent(meter, live);
    observe({ type: 'agent', live });
  };
  // A session's first turn runs while its start is still returning: what it says before this
  // dispatch knows the session is its own (a CLI's first retry notices, its first usage) waits
  // here, so it is shown and counted once the session is, never dropped.
  const early = new Map<string, SessionLiveEvent[]>();
  const unsubscribe = sessions.onSessionEvent((live) => {
    if (live.event.type === 'created' || live.event.type === 'adopted') created.add(live.sessionId);
    if (opened.some((s) => s.sessionId === live.sessionId)) return deliver(live);
    if (!created.has(live.sessionId)) return;
    const waiting = early.get(live.sessionId) ?? [];
    if (waiting.length < EARLY_EVENTS_MAX) early.set(live.sessionId, [...waiting, live]);
  });

  // This dispatch records its sessions' outcomes itself (with its verdict), after the sweep.
  const constraints = { ...dispatch.constraints, ownOutcomes: true };
  sessions.setScopeConstraints(scope, constraints);
  observe({
    type: 'constraints',
    scope,
    constraints: dispatch.constraints,
    provenance: provenanceOf(dispatch.provenance),
  });

  let decider: Decider | undefined;
  let outcome: PersonaOutcome | undefined;
  const onAbort = () => actor?.send({ type: 'abort', reason: abortReason(signal) });
  let actor: ReturnType<typeof createActor<typeof personaMachine>> | undefined;
  try {
    const stats = await trackRecords(o.home)
      .stats()
      .catch(() => new Map());
    decider =
      o.decider ??
      (await makeDecider({
        kind: view.driver ? view.decide : 'rules',
        home: o.home,
        set: o.set,
        persona: o.persona,
        rules,
        brief: o.brief,
        cwd: o.cwd,
        runId,
        questionPrefix: o.questionPrefix ?? '',
        dispatch,
        taskTags,
        ...(agentModel === undefined ? {} : { agentModel }),
        ...(effort === undefined ? {} : { effort }),
        ...(appendSystemPrompt === undefined ? {} : { appendSystemPrompt }),
        ...(checker === undefined ? {} : { verify: checker.command }),
        successRate: (id) => stats.get(id)?.successRate,
        ...(o.human === undefined ? {} : { human: o.human }),
        ...(o.terminal === undefined ? {} : { terminal: o.terminal }),
        ...(o.agent === undefined ? {} : { agent: o.agent }),
        sessions,
        scope,
        signal,
        observe,
        ...(o.env === undefined ? {} : { env: o.env }),
      }));
    const actors = personaActors({
      sessions,
      caller: { scope },
      decider,
      checker,
      cwd: o.cwd,
      constraints,
      initialPosture: dispatch.initialPosture,
      ...(appendSystemPrompt === undefined ? {} : { appendSystemPrompt }),
      ...(o.backendOptions === undefined ? {} : { backendOptions: o.backendOptions }),
      observe,
      mayContinue,
      track: {
        listing: [],
        opened: (session) => {
          opened.push(session);
          for (const live of early.get(session.sessionId) ?? []) deliver(live);
          early.delete(session.sessionId);
        },
        turn: (result) => {
          if ('turnDiff' in result && result.turnDiff !== undefined) diffs.push(result.turnDiff);
        },
        stopped: (session, verdict) => {
          if (verdict.failureReason !== undefined) failureReasons.set(session.sessionId, verdict.failureReason);
        },
      },
    });
    actor = createActor(personaMachine.provide({ actors }), {
      input: {
        hasCheck: checker !== undefined,
        maxCheckAttempts: checker?.maxAttempts ?? 0,
        maxStartAttempts: o.maxStartAttempts ?? 3,
      },
    });
    signal.addEventListener('abort', onAbort, { once: true });
    actor.start();
    if (signal.aborted) onAbort();
    outcome = await toPromise(actor);
  } finally {
    signal.removeEventListener('abort', onAbort);
    actor?.stop();
    // Sweep out: whatever happened above, nothing this persona opened stays alive.
    await sessions.releaseAllOwnedBy(scope);
    unsubscribe();
    await decider?.close?.().catch(() => undefined);
  }

  if (
    outcome.verdict.failureReason !== undefined &&
    outcome.session !== undefined &&
    !failureReasons.has(outcome.session.sessionId)
  ) {
    failureReasons.set(outcome.session.sessionId, outcome.verdict.failureReason);
  }
  let records: HarnessOutcomeRecord[] = [];
  if (o.record !== false) {
    try {
      const store = o.store ?? new CodeSessionStore(o.home);
      records = (
        await recordScopeOutcomes({
          home: o.home,
          store,
          scope,
          sessionIds: [...new Set([...created, ...opened.map((s) => s.sessionId)])],
          persona: view.id,
          failureReasons,
        })
      ).records;
    } catch (error) {
      // Learning is advisory: a failed write must not change the persona's verdict.
      observe({
        type: 'notice',
        level: 'warning',
        message: `could not record the outcome: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  observe({ type: 'settled', verdict: outcome.verdict });
  settleMetrics(metrics, outcome, records, Date.now() - dispatchedAt);
  const model = records.at(-1)?.model ?? meter.model;
  return {
    verdict: outcome.verdict,
    outcome,
    scope,
    runId,
    sessionIds: opened.map((s) => s.sessionId),
    ...(outcome.session === undefined ? {} : { session: outcome.session }),
    ...(model === undefined ? {} : { model }),
    records,
    costUsd: records.length > 0 ? records.reduce((n, r) => n + (r.costUsd ?? 0), 0) : meter.costUsd,
    tokens: meter.tokens,
    diffs,
  };
}

/**
 * The session port with a one-shot adopt pin: every registration of the scope's constraints
 * carries `adoptRecordId` until the record was adopted (a rejected start re-registers and still
 * adopts; a later start mints fresh).
 */
function adoptingOnce(port: PersonaSessionPort, recordId: string): PersonaSessionPort {
  let pending = true;
  const stop = port.onSessionEvent((live) => {
    if (live.sessionId === recordId && live.event.type === 'adopted') {
      pending = false;
      stop();
    }
  });
  return {
    execute: (input, caller) => port.execute(input, caller),
    onSessionEvent: (listener) => port.onSessionEvent(listener),
    setScopeConstraints: (scope, constraints) => {
      const { adoptRecordId: _ignored, ...rest } = constraints;
      port.setScopeConstraints(scope, pending ? { ...rest, adoptRecordId: recordId } : rest);
    },
    releaseAllOwnedBy: (scope) => {
      stop();
      return port.releaseAllOwnedBy(scope);
    },
  };
}

function settleMetrics(
  metrics: MetricsSink,
  outcome: PersonaOutcome,
  records: readonly HarnessOutcomeRecord[],
  durationMs: number,
): void {
  metrics.increment(SPECIALIST_METRICS.settled, { state: outcome.verdict.outcome });
  metrics.observe(SPECIALIST_METRICS.durationMs, durationMs);
  metrics.observe(SPECIALIST_METRICS.rounds, outcome.rounds);
  for (const record of records) {
    metrics.increment(SESSION_METRICS.settled, { backend: record.backendId, outcome: record.outcome });
    metrics.observe(SESSION_METRICS.settleDurationMs, durationMs, { backend: record.backendId });
  }
}

function meterEvent(
  meter: { costUsd: number; tokens: number; turns: number; model: string | undefined },
  live: SessionLiveEvent,
): void {
  const e = live.event;
  if (e.type === 'started' && e.model !== undefined) meter.model = e.model;
  if (e.type === 'turn_complete') meter.turns++;
  if (e.type === 'turn_complete' || e.type === 'ended') {
    if (typeof e.costUsd === 'number') meter.costUsd += e.costUsd;
    meter.tokens += (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0);
  }
}

/**
 * The persona's spending budgets (its own, its policy's, capped by the owner's), checked before
 * each guidance. Time is not a budget here: a driver has no wall-clock limit unless a flow sets one.
 */
function budgetSpent(budgets: Budgets | undefined, meter: { costUsd: number; turns: number }): string | undefined {
  if (budgets?.maxCostUsd !== undefined && meter.costUsd >= budgets.maxCostUsd)
    return `budget spent: $${meter.costUsd.toFixed(4)} of maxCostUsd ${budgets.maxCostUsd}`;
  if (budgets?.maxTurns !== undefined && meter.turns >= budgets.maxTurns)
    return `budget spent: ${meter.turns} of maxTurns ${budgets.maxTurns} turns`;
  return undefined;
}

function abortReason(signal: AbortSignal): string {
  const reason = signal.reason as { message?: unknown } | string | undefined;
  if (typeof reason === 'string') return reason;
  if (reason !== undefined && typeof reason.message === 'string') return reason.message;
  return 'interrupted';
}

function provenanceOf(provenance: Partial<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(provenance)) if (v !== undefined) out[k] = v;
  return out;
}
