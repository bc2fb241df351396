/**
 * The dbos engine seen from any machine that can reach its database: enqueue a run (DBOS
 * client; the run's id is the workflow's, so enqueuing one id twice is one run), follow its
 * events, show and list runs, answer an approval, cancel, wait for the result. Every call is
 * bounded: DBOSClient.enqueue waits forever on a database that does not answer, so neo races
 * it against {@link ENQUEUE_TIMEOUT_MS} and reports ENGINE_DB_UNREACHABLE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import type { RunEvent } from '../../core/events.js';
import { replay } from '../../core/reduce.js';
import { initialRunState } from '../../core/state.js';
import { askingIn } from '../../runtime/approvals.js';
import { NeoError, UsageError } from '../../../util/errors.js';
import { checkId } from '../../../util/ids.js';
import type { FlowEngine, RunRequest, RunResult } from '../engine.js';
import { bounded, CONNECT_TIMEOUT_MS, ensureSchema, openPool } from './database.js';
import { APP_NAME, APP_VERSION, QUEUE, WORKFLOW } from './names.js';
import {
  childRuns,
  forgetUnsucceeded,
  deleteQueuedRun,
  insertRun,
  listRuns,
  readSignal,
  runEvents,
  sendSignal,
  setRunStatus,
  type RunRow,
} from './run-table.js';
import { approvalSignal } from './steps.js';
import { findSessions, runSessions, sessionEvents, type SessionRow } from './session-table.js';
import type { PersistedSessionEvent } from '../../../session/index.js';

const ENQUEUE_TIMEOUT_MS = 15_000;
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

export class DbosClient implements FlowEngine {
  readonly name = 'dbos' as const;
  readonly #pool: pg.Pool;
  #ready: Promise<void> | undefined;
  #client: Promise<DBOSClient> | undefined;

  constructor(private readonly url: string) {
    this.#pool = openPool(url, 3);
  }

  /** neo's tables and DBOS's system schema exist (a client may be the first to touch the database). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await ensureSchema(this.#pool, this.url);
      const { rows } = await bounded(this.url, CONNECT_TIMEOUT_MS + 1_000, () =>
        this.#pool.query<{ t: string | null }>(`SELECT to_regclass('dbos.workflow_status')::text AS t`),
      );
      if (rows[0]?.t === null || rows[0]?.t === undefined) {
        const { DBOS } = await import('@dbos-inc/dbos-sdk');
        await bounded(this.url, 60_000, () => onStderr(() => DBOS.migrate(this.url)));
      }
    })();
    return this.#ready;
  }

  /**
   * Enqueues a run. `publish` (a run with a remote: its base's push) runs once, for a run this
   * call records first, before anything is enqueued; when it fails, the run's row goes and
   * nothing is enqueued.
   */
  async start(
    request: RunRequest & { flow?: string },
    publish?: () => Promise<void>,
  ): Promise<{ runId: string; enqueued: boolean }> {
    checkId('run', request.runId);
    await this.ready();
    const fresh = await this.#q(() => insertRun(this.#pool, request.flow ?? 'flow', request));
    if (fresh && publish !== undefined)
      await publish().catch(async (error: unknown) => {
        await this.#q(() => deleteQueuedRun(this.#pool, request.runId)).catch(() => undefined);
        throw error;
      });
    const { flow: _flow, ...args } = request;
    await bounded(this.url, ENQUEUE_TIMEOUT_MS, async () =>
      // The run's id is the workflow's: a second enqueue of it returns the first (DBOS's default policy).
      (await this.#dbos()).enqueue(
        { queueName: QUEUE, workflowName: WORKFLOW, workflowID: request.runId, appVersion: APP_VERSION },
        args,
      ),
    );
    return { runId: request.runId, enqueued: fresh };
  }

  async cancel(runId: string): Promise<void> {
    const run = await this.run(runId);
    if (FINISHED.has(run.status)) return;
    await bounded(this.url, ENQUEUE_TIMEOUT_MS, async () => (await this.#dbos()).cancelWorkflow(run.runId));
    await this.#q(() =>
      setRunStatus(this.#pool, run.runId, 'cancelled', {
        code: 'FLOW_CANCELLED',
        message: 'cancelled with `neo flow cancel`',
      }),
    );
  }

  /**
   * `neo flow resume --engine dbos`: a cancelled or failed run goes back on the queue under its
   * own id (DBOS `resumeWorkflow` for a cancelled workflow, `rewindWorkflow` for one that
   * ended), and a worker takes it over from its record: succeeded steps kept, the rest tried
   * afresh (their recorded outcomes are forgotten). A sub-flow is resumed through its parent.
   */
  async resume(runId: string): Promise<RunRow> {
    const run = await this.run(runId);
    if (run.parent !== undefined)
      throw new UsageError('FLOW_RESUME_SUBFLOW', `run ${run.runId} is a sub-flow of ${run.parent.runId}`, {
        hint: `resume its parent: neo flow resume ${run.parent.runId} --engine dbos`,
      });
    const workflow = run.workflowStatus;
    if (run.status === 'succeeded')
      throw new UsageError('FLOW_RUN_FINISHED', `run ${run.runId} already succeeded`, {
        hint: 'start a new run with `neo flow run --engine dbos`',
      });
    if (workflow === 'PENDING' || workflow === 'ENQUEUED' || workflow === 'DELAYED' || !FINISHED.has(run.status))
      throw new UsageError('FLOW_RUN_LIVE', `run ${run.runId} is ${run.status} on the dbos engine`, {
        hint: 'a worker drives it (or will); cancel it first with `neo flow cancel --engine dbos` to resume it',
      });
    await this.#q(async () => {
      await forgetUnsucceeded(this.#pool, run.runId);
      await setRunStatus(this.#pool, run.runId, 'resuming');
    });
    await bounded(this.url, ENQUEUE_TIMEOUT_MS, async () => {
      const dbos = await this.#dbos();
      if (workflow === 'CANCELLED') await dbos.resumeWorkflow(run.runId, { queueName: QUEUE });
      else await dbos.rewindWorkflow(run.runId, { startStep: 0, queueName: QUEUE });
    });
    return this.run(run.runId);
  }

  /** The sub-flow runs a run started. */
  async children(runId: string): Promise<RunRow[]> {
    return this.#q(() => childRuns(this.#pool, runId));
  }

  async result(runId: string, timeoutMs: number): Promise<RunResult | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.run(runId);
      if (FINISHED.has(run.status))
        return {
          runId: run.runId,
          status: run.status as RunResult['status'],
          ...(run.reason ? { reason: run.reason } : {}),
        };
      if (Date.now() >= deadline) return undefined;
      await sleep(200);
    }
  }

  /** One run by id or unique prefix. */
  async run(idOrPrefix: string): Promise<RunRow> {
    await this.ready();
    const rows = await this.#q(() => listRuns(this.#pool, idOrPrefix, 2));
    const exact = rows.find((r) => r.runId === idOrPrefix);
    if (exact !== undefined) return exact;
    if (rows.length === 1) return rows[0]!;
    if (rows.length === 0)
      throw new UsageError('FLOW_RUN_NOT_FOUND', `no dbos run \`${idOrPrefix}\` in the database`, {
        hint: 'list runs with `neo flow list --engine dbos`',
      });
    throw new UsageError('FLOW_RUN_AMBIGUOUS', `\`${idOrPrefix}\` names more than one run`, {
      hint: 'give more of the id',
    });
  }

  async list(): Promise<RunRow[]> {
    await this.ready();
    return this.#q(() => listRuns(this.#pool));
  }

  async events(runId: string): Promise<RunEvent[]> {
    return this.#q(() => runEvents(this.#pool, runId));
  }

  /** A code session a worker copied (by id or unique prefix). */
  async session(idOrPrefix: string): Promise<SessionRow> {
    await this.ready();
    const rows = await this.#q(() => findSessions(this.#pool, idOrPrefix));
    if (rows.length === 1) return rows[0]!;
    if (rows.length === 0)
      throw new UsageError('SESSION_NOT_FOUND', `no code session \`${idOrPrefix}\` of a dbos run in the database`, {
        hint: "a dbos run's sessions are listed by `neo flow show <run> --engine dbos`",
      });
    throw new UsageError('CLI_SESSION_AMBIGUOUS', `\`${idOrPrefix}\` names more than one session`, {
      hint: 'give more of the id',
    });
  }

  async sessionEvents(sessionId: string, afterSeq = 0): Promise<PersistedSessionEvent[]> {
    return this.#q(() => sessionEvents(this.#pool, sessionId, afterSeq));
  }

  /** The code sessions a run's agent steps ran, oldest first. */
  async sessions(runId: string): Promise<SessionRow[]> {
    return this.#q(() => runSessions(this.#pool, runId));
  }

  /** Answers an approval: the first answer wins (FLOW_APPROVAL_ANSWERED for a later one). */
  async approve(runId: string, step: string, answer: { decision: string; note?: string; by: string }): Promise<RunRow> {
    const run = await this.run(runId);
    // The asking in progress (or next), from the run's mirrored events: the answer is for it.
    const state = replay(initialRunState(run.runId, []), await this.events(run.runId));
    const key = approvalSignal(step, askingIn(state, step));
    // An approval already answered names its answer, whether or not the run has gone on since.
    const left = await this.#q(() => readSignal(this.#pool, run.runId, key));
    if (left === undefined && FINISHED.has(run.status))
      throw new UsageError('FLOW_RUN_FINISHED', `run ${run.runId} has finished (${run.status})`, {
        hint: 'an answer now would change nothing',
      });
    const { value, first } =
      left === undefined
        ? await this.#q(() => sendSignal(this.#pool, run.runId, key, answer))
        : { value: left, first: false };
    if (!first) {
      const taken = value as { decision: string; by: string };
      throw new UsageError(
        'FLOW_APPROVAL_ANSWERED',
        `${step} of run ${run.runId} was answered already: ${taken.decision} by ${taken.by}`,
        {
          hint: 'one answer per approval: the first one stands',
        },
      );
    }
    return run;
  }

  /** Follows a run's events from `after` until it finishes (or `signal` aborts). */
  async *follow(runId: string, signal: AbortSignal, after = 0): AsyncGenerator<RunEvent> {
    let seen = after;
    while (!signal.aborted) {
      const events = await this.events(runId);
      for (const event of events.slice(seen)) yield event;
      seen = Math.max(seen, events.length);
      const run = await this.run(runId);
      if (FINISHED.has(run.status) && seen >= events.length) return;
      await sleep(250, undefined, { signal }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined)
      await bounded(this.url, 5_000, async () => (await client).destroy()).catch(() => undefined);
    await this.#pool.end().catch(() => undefined);
  }

  /** One DBOS client for this object's life (each makes a pool of its own). */
  #dbos(): Promise<DBOSClient> {
    this.#client ??= import('@dbos-inc/dbos-sdk').then((sdk) =>
      sdk.DBOSClient.create({ systemDatabaseUrl: this.url, applicationName: APP_NAME }),
    );
    return this.#client;
  }

  #q<T>(work: () => Promise<T>): Promise<T> {
    return bounded(this.url, CONNECT_TIMEOUT_MS + 5_000, work);
  }
}

/** Thrown by a command given a dbos-only option without the engine. */
export function needsDbos(option: string): NeoError {
  return new UsageError('CLI_ENGINE_OPTION', `${option} is an option of the dbos engine`, {
    hint: 'add --engine dbos',
  });
}

/**
 * Runs `work` with console.log sent to stderr: DBOS.migrate reports its progress through a logger
 * of its own making (console.log, no option to quiet it), and stdout is the command's output —
 * `flow run --json`'s first line was DBOS's "Running DBOS system database migrations...".
 */
async function onStderr<T>(work: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  try {
    return await work();
  } finally {
    console.log = log;
  }
}
