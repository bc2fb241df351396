/**
 * The supervised resume behind `POST /api/code-sessions/:id/resume` (seed 004 §5): a driving
 * persona (the default driver, as `neo persona run` dispatches it) resumes an ended, failed or
 * orphaned record. Its first start ADOPTS the record — same id, events continuing at
 * lastEventSeq + 1, one run appended to runs[] — with the backend pinned to the record's and
 * its ceiling never above the record's. The route answers once the record is adopted, or with
 * the dispatch's real failure when it never is (the record is then untouched).
 */
import { randomBytes } from 'node:crypto';
import type { DefinitionSet } from '../definitions/index.js';
import type { MetricsSink } from '../observability/index.js';
import { loadPersona, runPersona } from '../persona/index.js';
import type { CodeSessionRecord, SessionLog, SessionService } from '../session/index.js';
import { isOrphaned, SessionRejection } from '../session/index.js';
import type { Liveness } from './liveness.js';
import { HttpError } from './envelope.js';

export interface ResumeDispatcher {
  resume(sessionId: string): Promise<{ record: CodeSessionRecord; scope: string }>;
  /** Records being resumed now. */
  readonly resuming: ReadonlySet<string>;
  /** Aborts every resume under way and waits for their sweeps. */
  close(): Promise<void>;
}

export function createResumeDispatcher(deps: {
  home: string;
  service: SessionService;
  definitions: () => DefinitionSet;
  /** The session's liveness as every route sees it (liveness.ts). */
  liveness: (sessionId: string, record: CodeSessionRecord) => Liveness;
  /** Releases a session that ended but is still held by a process attached to the server. */
  releaseElsewhere: (sessionId: string) => Promise<void>;
  metrics: MetricsSink;
  log: SessionLog;
}): ResumeDispatcher {
  const resuming = new Set<string>();
  const running = new Set<Promise<unknown>>();
  const stop = new AbortController();

  async function resume(sessionId: string) {
    const { service } = deps;
    const record = await service.store.get(sessionId);
    if (record === null) throw new SessionRejection('SESSION_NOT_FOUND', `no code session \`${sessionId}\``);
    const liveness = deps.liveness(sessionId, record);
    if (resuming.has(sessionId) || liveness === 'live')
      throw new SessionRejection('SESSION_ALREADY_LIVE', `code session \`${sessionId}\` is still live`, {
        hint: 'guide it, or stop it before resuming',
      });
    // Ended but still held (its agent ended itself, nobody released it yet): released first.
    if (liveness === 'held') {
      const here = service.registry.find(sessionId);
      if (here !== undefined) await service.registry.release(here, 'explicit');
      else await deps.releaseElsewhere(sessionId);
      return resume(sessionId);
    }
    // Recorded live by a process that is gone: an orphan, resumable (seed 004 §5).
    if ((record.status === 'running' || record.status === 'idle') && !isOrphaned(record))
      throw new SessionRejection(
        'SESSION_ALREADY_LIVE',
        `code session \`${sessionId}\` is recorded as ${record.status} by a process this server cannot reach`,
        { hint: 'wait for that process to end it; a session whose process died is marked orphaned and can be resumed' },
      );
    const set = deps.definitions();
    const persona = loadPersona(set, undefined);
    const scope = `code-resume-${randomBytes(6).toString('hex')}`;
    resuming.add(sessionId);
    let adopted!: () => void;
    const adoption = new Promise<void>((resolve) => (adopted = resolve));
    const rejections: string[] = [];
    const unsubscribe = service.onSessionEvent((live) => {
      if (live.sessionId === sessionId && live.event.type === 'adopted') adopted();
    });
    const dispatch = runPersona({
      home: deps.home,
      set,
      persona,
      brief: record.taskBrief,
      cwd: record.cwd,
      sessions: service,
      scope,
      adoptRecordId: sessionId,
      caller: {
        source: 'control-plane resume',
        knobs: { backend: record.backendId, maxPosture: record.maxPosture },
        backendOverride: true,
      },
      taskTags: record.taskTags,
      signal: stop.signal,
      metrics: deps.metrics,
      observe: (o) => {
        if (o.type === 'rejected') rejections.push(`${o.rejection.code}: ${o.rejection.message}`);
      },
    });
    const settled = dispatch.then(
      (result) => deps.log.info('serve_resume_settled', { sessionId, scope, verdict: result.verdict.outcome }),
      (error: unknown) => deps.log.warn('serve_resume_failed', { sessionId, scope, error }),
    );
    running.add(settled);
    void settled.finally(() => {
      running.delete(settled);
      resuming.delete(sessionId);
      unsubscribe();
    });
    // The answer: adopted, or the dispatch ended (threw, or settled) without ever adopting.
    const outcome = await Promise.race([
      adoption.then(() => 'adopted' as const),
      dispatch.then(
        (result) => ({ settledWithout: result.verdict.failureReason ?? result.verdict.note }),
        (error: unknown) => ({ failed: error }),
      ),
    ]);
    if (outcome !== 'adopted') {
      const reason =
        'failed' in outcome
          ? outcome.failed instanceof Error
            ? outcome.failed.message
            : String(outcome.failed)
          : outcome.settledWithout;
      const why = rejections.length > 0 ? `${reason} — ${rejections.join('; ')}` : reason;
      throw new HttpError(500, 'SERVER_RESUME_FAILED', `the resume of \`${sessionId}\` did not start: ${why}`, {
        hint: 'the record is unchanged; see the server log',
      });
    }
    const now = (await service.store.get(sessionId)) ?? record;
    return { record: now, scope };
  }

  return {
    resume,
    resuming,
    async close() {
      stop.abort(new Error('the server is stopping'));
      await Promise.allSettled([...running]);
    },
  };
}
