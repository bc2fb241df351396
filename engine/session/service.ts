/**
 * The op tool: `execute(input, caller)` parses loudly, dispatches to one handler and counts
 * code_session_ops_total{op,outcome}. The only door other areas use to drive code sessions.
 */
import type { ProjectProfile } from '../capabilities/index.js';
import type { DefinitionSet } from '../definitions/index.js';
import { createTransport, type Transport, type TransportContext } from '../transports/index.js';
import { NeoError, UsageError } from '../util/errors.js';
import {
  OPS,
  type CallerContext,
  type CodeSessionInput,
  type CodeSessionOpResult,
  type CodeSessionOutputs,
  type ScopeConstraints,
} from './contract.js';
import { injectUserGuidance } from './delivery.js';
import { SessionFailure } from './errors.js';
import type { SessionLiveEvent } from './events.js';
import { realClock, type SessionClock } from './clock.js';
import { stderrLog, type SessionLog } from './log.js';
import { METRICS, guardedMetrics, type MetricsSink } from './metrics.js';
import { answer, guide, interrupt, setPosture, stop } from './ops/control.js';
import type { OpContext } from './ops/context.js';
import { listBackends } from './ops/list-backends.js';
import { checklist, listSessions, reset, undo } from './ops/agent-state.js';
import { readTurn } from './ops/read-turn.js';
import { startSession } from './ops/start.js';
import { parseOpInput } from './parse-input.js';
import { SessionRegistry, type ReleasedHook } from './registry.js';
import { CodeSessionStore } from './store/session-store.js';
import type { DiffBaseline } from './diff/capture.js';
import { defined } from '../util/defined.js';

export interface SessionServiceOptions {
  /** NEO_HOME. */
  home: string;
  /** Backend descriptors, routing and config defaults come from here (a request may pass its own). */
  definitions: DefinitionSet;
  /** Default: the adapter table of engine/transports for the backend's protocol. */
  transports?: (backendId: string, definitions: DefinitionSet) => Promise<Transport | undefined>;
  /**
   * The `.env` files read with `definitions` (a flow reads them when its run starts), handed to
   * the default transports beside the definitions' neo.yaml layers, for the requests that use
   * those definitions. Absent (the daemon, `neo session`), neo's agent reads them when each
   * session starts.
   */
  dotenv?: TransportContext['dotenv'];
  /**
   * The capability profile of the project, detected with `definitions` when a flow's run started
   * (held in memory): a start that uses those definitions provisions from it and never reads
   * its workspace for it. Absent (the daemon, `neo session`, `neo agent`), each start with a cwd
   * detects the project there.
   */
  projectProfile?: ProjectProfile;
  /** No agent event this long → stalled. Default: config `defaults.idleTimeout`, else 10 minutes. */
  idleTimeoutMs?: number;
  clock?: SessionClock;
  metrics?: MetricsSink;
  log?: SessionLog;
  /** Track-record lines per backend (the learning area fills this seam). */
  trackRecord?: (backendId: string) => string[] | undefined | Promise<string[] | undefined>;
  /** Where a start without cwd runs. Default: process.cwd(). */
  defaultCwd?: string;
  /**
   * Called once per released session whose scope does not record its own outcomes (a flow
   * step, a person's `neo session` run); the learning area fills this seam.
   */
  onReleased?: ReleasedHook;
  /** fsync every events.jsonl write. */
  fsync?: boolean;
}

export interface ExecuteOptions {
  /** The definitions this request sees (e.g. loaded for the caller's project). */
  definitions?: DefinitionSet;
  /** Abandons a blocking read-turn without consuming its notification. */
  signal?: AbortSignal;
  /** Where a start without cwd runs, for this request (the caller's directory). */
  cwd?: string;
  /**
   * The environment a start's agent runs with: the caller's own, when the caller is another
   * process (a CLI talking to the daemon). Default: this process's.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * A start's first diff baseline, taken by the in-process caller just before (a flow step's
   * base: diff/capture.ts says when it is used). Never part of an op's input: a session started
   * by hand or through the daemon or the control plane takes its own.
   */
  baseline?: DiffBaseline;
}

export interface SessionService {
  /** Parses `input` loudly and runs the op; rejections throw NeoError (SESSION_*, POSTURE_*). */
  execute<I extends CodeSessionInput>(
    input: I,
    caller: CallerContext,
    options?: ExecuteOptions,
  ): Promise<CodeSessionOutputs[I['op']]>;
  execute(input: unknown, caller: CallerContext, options?: ExecuteOptions): Promise<CodeSessionOpResult>;
  setScopeConstraints(scope: string, constraints: ScopeConstraints): void;
  /** The settle sweep: releases every session `scope` opened and clears its constraints. */
  releaseAllOwnedBy(scope: string): Promise<void>;
  /** A person's guidance (pinned in the round history), for any live session. */
  injectUserGuidance(sessionId: string, text: string): Promise<void>;
  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void;
  /** Sessions live in this service. */
  liveSessionIds(): string[];
  readonly store: CodeSessionStore;
  readonly registry: SessionRegistry;
  /** Stops every live session and closes the store. */
  close(): Promise<void>;
}

export function createSessionService(options: SessionServiceOptions): SessionService {
  const log = options.log ?? stderrLog;
  const metrics = guardedMetrics(options.metrics);
  const store = new CodeSessionStore(options.home, {
    log,
    ...defined({ fsync: options.fsync }),
  });
  const registry = new SessionRegistry({
    store,
    log,
    metrics,
    ...defined({ onReleased: options.onReleased }),
  });
  // The .env read with the service's definitions goes with them only: a request that brings its
  // own (another project's) has its agent read that project's files when it starts.
  const transports =
    options.transports ??
    ((backendId, definitions) =>
      defaultTransports(backendId, definitions, definitions === options.definitions ? options.dotenv : undefined));
  const clock = options.clock ?? realClock;

  async function execute(
    input: unknown,
    caller: CallerContext,
    executeOptions: ExecuteOptions = {},
  ): Promise<CodeSessionOpResult> {
    const raw = typeof input === 'object' && input !== null ? (input as { op?: unknown }).op : undefined;
    let op = typeof raw === 'string' && (OPS as readonly string[]).includes(raw) ? raw : 'invalid';
    try {
      const parsed = parseOpInput(input);
      op = parsed.op;
      const definitions = executeOptions.definitions ?? options.definitions;
      const ctx: OpContext = {
        registry,
        definitions,
        transports,
        metrics,
        log,
        clock,
        idleTimeoutMs: options.idleTimeoutMs,
        defaultCwd: executeOptions.cwd ?? options.defaultCwd ?? process.cwd(),
        caller,
        ...defined({
          trackRecord: options.trackRecord,
          signal: executeOptions.signal,
          env: executeOptions.env,
          baseline: executeOptions.baseline,
          // Like the .env: the run's profile goes with the run's definitions only.
          projectProfile: definitions === options.definitions ? options.projectProfile : undefined,
        }),
      };
      const result = await dispatch(ctx, parsed);
      metrics.increment(METRICS.ops, { op, outcome: 'ok' });
      return result;
    } catch (error) {
      const rejected = error instanceof UsageError;
      metrics.increment(METRICS.ops, { op, outcome: rejected ? 'rejected' : 'error' });
      if (op === 'start')
        log.info(rejected ? 'code_session_start_rejected' : 'code_session_start_failed', {
          scope: caller.scope,
          code: error instanceof NeoError ? error.code : undefined,
          error,
        });
      if (error instanceof NeoError) throw error;
      throw new SessionFailure(
        'SESSION_OP_FAILED',
        `${op} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  return {
    execute: execute as SessionService['execute'],
    setScopeConstraints: (scope, constraints) => registry.setScopeConstraints(scope, constraints),
    releaseAllOwnedBy: (scope) => registry.releaseAllOwnedBy(scope),
    injectUserGuidance: (sessionId, text) => injectUserGuidance(registry, sessionId, text),
    onSessionEvent: (listener) => registry.onSessionEvent(listener),
    liveSessionIds: () => registry.liveSessions().map((s) => s.id),
    store,
    registry,
    async close() {
      await registry.releaseAll('lifetime');
      await store.close();
    },
  };
}

function dispatch(ctx: OpContext, input: CodeSessionInput): Promise<CodeSessionOpResult> {
  switch (input.op) {
    case 'start':
      return startSession(ctx, input);
    case 'read-turn':
      return readTurn(ctx, input);
    case 'answer':
      return answer(ctx, input);
    case 'guide':
      return guide(ctx, input);
    case 'set-posture':
      return setPosture(ctx, input);
    case 'interrupt':
      return interrupt(ctx, input);
    case 'stop':
      return stop(ctx, input);
    case 'list-backends':
      return listBackends(ctx);
    case 'undo':
      return undo(ctx, input);
    case 'reset':
      return reset(ctx, input);
    case 'checklist':
      return checklist(ctx, input);
    case 'list-sessions':
      return listSessions(ctx, input);
  }
}

async function defaultTransports(
  backendId: string,
  definitions: DefinitionSet,
  dotenv: TransportContext['dotenv'],
): Promise<Transport | undefined> {
  const definition = definitions.get('backend', backendId);
  return definition === undefined
    ? undefined
    : createTransport(definition, { configs: definitions.configs, ...defined({ dotenv }) });
}
