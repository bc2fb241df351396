/**
 * One drive of the persona flow machine, whoever resolved it: a persona's dispatch
 * (run-persona.ts) or a flow step's own rules (step-driver.ts). Constraints in, the machine,
 * sweep out:
 * 1. The scope's constraints are registered BEFORE anything starts: whatever the decider asks
 *    for, the session service rejects a start above them.
 * 2. The machine runs with the given decider; every session event of the scope reaches the
 *    observer, including what a session says before its start returns.
 * 3. On settle — success, failure, abort or a thrown error — every session the scope opened is
 *    released and its constraints cleared; no subprocess outlives the drive. There is no
 *    wall-clock timeout here: only an abort (Ctrl-C, a flow's own timeout) ends it early.
 * 4. With `record`, one outcome record per session is appended to the learning log.
 */
import { createActor, toPromise } from 'xstate';
import type { Budgets, Posture } from '../definitions/index.js';
import { recordScopeOutcomes, type HarnessOutcomeRecord, type SessionRecordSource } from '../learning/index.js';
import { guardedMetrics, SESSION_METRICS, SPECIALIST_METRICS, type MetricsSink } from '../observability/index.js';
import { CodeSessionStore, type ScopeConstraints, type SessionLiveEvent, type TurnDiff } from '../session/index.js';
import { personaActors, type PersonaSessionPort, type Refusal } from './actors.js';
import type { Checker } from './check.js';
import type { Decider, SessionInfo, Verdict } from './decisions.js';
import { personaMachine } from './machine.js';
import type { PersonaOutcome } from './machine-context.js';
import type { PersonaObserver } from './observation.js';
import { defined } from '../util/defined.js';

/** Events of a session kept until the drive knows it is its own (a start's first turn). */
const EARLY_EVENTS_MAX = 500;

export interface DriveOptions {
  /** NEO_HOME. */
  home: string;
  /** Who drives, for outcome records and metrics (a persona id, `flow-default`). */
  label: string;
  cwd: string;
  sessions: PersonaSessionPort;
  /** The ownership scope, unique per drive. */
  scope: string;
  runId: string;
  constraints: ScopeConstraints;
  /** The posture sessions start in (never above the ceiling). */
  initialPosture: Posture;
  /** Spending limits checked before each guidance (a persona's own). */
  budgets?: Budgets;
  decider: Decider;
  checker?: Checker;
  /** Success needs a passing check (default true); see honestVerdict. */
  requireCheck?: boolean;
  /** The caller's last word on work judged done (see ActorDeps.accept). */
  accept?: (text: string) => Promise<Refusal | undefined>;
  /** Ask list-backends before select (default true). */
  listBackends?: boolean;
  appendSystemPrompt?: string;
  backendOptions?: Record<string, unknown>;
  signal: AbortSignal;
  observe: PersonaObserver;
  /** Asked before each guidance: a reason to stop instead (a flow's budget is spent). */
  mayContinue?: () => string | undefined;
  /** Append outcome records here (false: the session service's release hook records them). */
  record: boolean;
  store?: SessionRecordSource;
  /** Starts to try before giving up. */
  maxStartAttempts: number;
  metrics?: MetricsSink;
}

export interface PersonaRunResult {
  verdict: Verdict;
  outcome: PersonaOutcome;
  scope: string;
  runId: string;
  /** Sessions this drive opened. */
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

export async function drivePersona(o: DriveOptions): Promise<PersonaRunResult> {
  const { observe, signal, scope, sessions } = o;
  const opened: SessionInfo[] = [];
  const created = new Set<string>();
  const failureReasons = new Map<string, string>();
  const diffs: TurnDiff[] = [];
  const meter = { costUsd: 0, tokens: 0, turns: 0, model: undefined as string | undefined };
  const mayContinue = () => o.mayContinue?.() ?? budgetSpent(o.budgets, meter);
  const metrics = guardedMetrics(o.metrics);
  const dispatchedAt = Date.now();
  metrics.increment(SPECIALIST_METRICS.dispatched, { backend: o.constraints.backend ?? 'auto' });
  const deliver = (live: SessionLiveEvent) => {
    meterEvent(meter, live);
    observe({ type: 'agent', live });
  };
  // A session's first turn runs while its start is still returning: what it says before this
  // drive knows the session is its own (a CLI's first retry notices, its first usage) waits
  // here, so it is shown and counted once the session is, never dropped.
  const early = new Map<string, SessionLiveEvent[]>();
  const unsubscribe = sessions.onSessionEvent((live) => {
    // Only this scope's sessions: drives that share a session service (a flow's parallel steps)
    // must not keep each other's events.
    const ours = live.ownerScope === undefined || live.ownerScope === scope;
    if (ours && (live.event.type === 'created' || live.event.type === 'adopted')) created.add(live.sessionId);
    if (opened.some((s) => s.sessionId === live.sessionId)) return deliver(live);
    if (!created.has(live.sessionId)) return;
    const waiting = early.get(live.sessionId) ?? [];
    if (waiting.length < EARLY_EVENTS_MAX) early.set(live.sessionId, [...waiting, live]);
  });

  // A recording drive records its sessions' outcomes itself (with its verdict), after the sweep.
  const constraints = o.record ? { ...o.constraints, ownOutcomes: true } : o.constraints;
  sessions.setScopeConstraints(scope, constraints);

  let outcome: PersonaOutcome | undefined;
  const onAbort = () => actor?.send({ type: 'abort', reason: abortReason(signal), ...failedAbort(signal) });
  let actor: ReturnType<typeof createActor<typeof personaMachine>> | undefined;
  try {
    const actors = personaActors({
      sessions,
      caller: { scope },
      decider: o.decider,
      checker: o.checker,
      cwd: o.cwd,
      constraints,
      initialPosture: o.initialPosture,
      ...defined({ appendSystemPrompt: o.appendSystemPrompt, backendOptions: o.backendOptions, accept: o.accept }),
      listBackends: o.listBackends ?? true,
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
        hasCheck: o.checker !== undefined,
        maxCheckAttempts: o.checker?.maxAttempts ?? 0,
        maxStartAttempts: o.maxStartAttempts,
        requireCheck: o.requireCheck ?? true,
      },
    });
    signal.addEventListener('abort', onAbort, { once: true });
    actor.start();
    if (signal.aborted) onAbort();
    outcome = await toPromise(actor);
  } finally {
    signal.removeEventListener('abort', onAbort);
    actor?.stop();
    // Sweep out: whatever happened above, nothing this drive opened stays alive.
    await sessions.releaseAllOwnedBy(scope);
    unsubscribe();
    await o.decider.close?.().catch(() => undefined);
  }

  if (
    outcome.verdict.failureReason !== undefined &&
    outcome.session !== undefined &&
    !failureReasons.has(outcome.session.sessionId)
  ) {
    failureReasons.set(outcome.session.sessionId, outcome.verdict.failureReason);
  }
  let records: HarnessOutcomeRecord[] = [];
  if (o.record) {
    try {
      const store = o.store ?? new CodeSessionStore(o.home);
      records = (
        await recordScopeOutcomes({
          home: o.home,
          store,
          scope,
          sessionIds: [...new Set([...created, ...opened.map((s) => s.sessionId)])],
          persona: o.label,
          failureReasons,
        })
      ).records;
    } catch (error) {
      // Learning is advisory: a failed write must not change the verdict.
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
    runId: o.runId,
    sessionIds: opened.map((s) => s.sessionId),
    ...defined({ session: outcome.session, model }),
    records,
    costUsd: records.length > 0 ? records.reduce((n, r) => n + (r.costUsd ?? 0), 0) : meter.costUsd,
    tokens: meter.tokens,
    diffs,
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

/** An abort whose reason says the drive failed (`{ failed: true, code }`: a stall), not that it was stopped. */
function failedAbort(signal: AbortSignal): { failed?: { code: string } } {
  const reason = signal.reason as { failed?: unknown; code?: unknown } | undefined;
  return reason?.failed === true && typeof reason.code === 'string' ? { failed: { code: reason.code } } : {};
}

function abortReason(signal: AbortSignal): string {
  const reason = signal.reason as { message?: unknown } | string | undefined;
  if (typeof reason === 'string') return reason;
  if (reason !== undefined && typeof reason.message === 'string') return reason.message;
  return 'interrupted';
}
