import type { ProjectProfile } from '../../capabilities/index.js';
import type { DefinitionSet } from '../../definitions/index.js';
import { describeProcess, type ProcessIdentity } from '../../execution/index.js';
import type { Transport } from '../../transports/index.js';
import type { CallerContext } from '../contract.js';
import { SessionRejection, sessionNotFound } from '../errors.js';
import type { SessionClock } from '../clock.js';
import type { DiffBaseline } from '../diff/capture.js';
import type { LiveSession } from '../live-session.js';
import type { SessionLog } from '../log.js';
import type { MetricsSink } from '../metrics.js';
import type { SessionRegistry } from '../registry.js';
import { isOrphaned } from '../store/record.js';

/** What every op handler works with. */
export interface OpContext {
  registry: SessionRegistry;
  /** The definitions this request sees (a start freezes its backend descriptor). */
  definitions: DefinitionSet;
  transports(backendId: string, definitions: DefinitionSet): Promise<Transport | undefined>;
  metrics: MetricsSink;
  log: SessionLog;
  clock: SessionClock;
  idleTimeoutMs: number | undefined;
  /** Where a start without cwd runs. */
  defaultCwd: string;
  trackRecord?: (backendId: string) => string[] | undefined | Promise<string[] | undefined>;
  caller: CallerContext;
  /** Aborts a blocking read-turn (the caller went away). */
  signal?: AbortSignal;
  /** The environment a start's agent runs with (the caller's, when it sent one). */
  env?: NodeJS.ProcessEnv;
  /**
   * The capability profile a flow detected when its run started (SessionServiceOptions), for a
   * start that uses the service's definitions; absent, a start with a cwd detects its own.
   */
  projectProfile?: ProjectProfile;
  /** A start's first diff baseline, handed over in process (ExecuteOptions.baseline). */
  baseline?: DiffBaseline;
}

/** The caller's live session, or a typed error that says whether it was stopped or never ours. */
export async function liveSession(ctx: OpContext, sessionId: string): Promise<LiveSession> {
  const session = ctx.registry.find(sessionId);
  if (session !== undefined && session.ownerScope === ctx.caller.scope && !session.closed) return session;
  if (session === undefined) {
    const record = await ctx.registry.store.get(sessionId);
    if (record !== null && record.runs.some((run) => run.ownerScopeId === ctx.caller.scope) && isOrphaned(record))
      throw orphaned(sessionId, record.runs.at(-1)?.host);
  }
  if (await ctx.registry.wasReleasedBy(sessionId, ctx.caller.scope)) {
    throw new SessionRejection('SESSION_RELEASED', `code session \`${sessionId}\` was stopped; it takes no more ops`, {
      hint: 'its record and events stay readable: `neo sessions show <id> --events`',
    });
  }
  throw sessionNotFound(sessionId);
}

/** A session whose host died while the session was live: neither stopped nor live. */
export function orphaned(sessionId: string, host: ProcessIdentity | undefined): SessionRejection {
  return new SessionRejection(
    'SESSION_ORPHANED',
    `code session \`${sessionId}\` is an orphan: the process that hosted it${host === undefined ? '' : ` (${describeProcess(host)})`} died while the session was live; it takes no more ops`,
    { hint: 'its record and events stay readable: `neo sessions show <id> --events`; start a new session to go on' },
  );
}
