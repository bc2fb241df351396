/**
 * `neo worker --engine dbos`: a DBOS Transact executor that takes runs off the `neo-runs` queue
 * and drives each with the same runtime a local run uses (start-run → drive → the pure core),
 * its steps through {@link dbosSteps} and its events mirrored to the run's record in Postgres.
 *
 * A run is one DBOS workflow whose id is the run's id. When a worker dies, DBOS keeps the
 * workflow PENDING on that worker's executor id; the supervisor every worker runs notices the
 * executor's heartbeat stopped (neo.workers) and re-enqueues its workflows (DBOS
 * `resumeWorkflow`), so a live worker takes them over: it replays the record's events, resumes
 * (a finished step is kept, a running one runs again from a fresh workspace) and goes on.
 */
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import type pg from 'pg';
import { startRun } from '../../runtime/start-run.js';
import { runDir } from '../../store/run-files.js';
import type { RunEvent } from '../../core/events.js';
import { NeoError, UsageError } from '../../../util/errors.js';
import type { RunRequest, RunResult } from '../engine.js';
import { bounded, ensureSchema, openPool } from './database.js';
import { EventMirror } from './event-mirror.js';
import { SessionMirror } from './session-mirror.js';
import { APP_NAME, APP_VERSION, QUEUE, WORKFLOW } from './names.js';
import {
  insertChildRun,
  pinPlanHash,
  pinProfile,
  runEvents,
  setRunPlan,
  setRunResult,
  setRunStatus,
  stepCommits,
} from './run-table.js';
import { RemoteRun } from './remote-workspace.js';
import { approvalKey, dbosSteps } from './steps.js';
import { SUPERVISE_MS, superviseOnce, type Workflows } from './supervisor.js';
import type { DurableRun } from '../../runtime/options.js';
import type { FlowObservation } from '../../runtime/observer.js';

export interface WorkerOptions {
  home: string;
  url: string;
  concurrency: number;
  executorId?: string;
  /** Recover dead executors' runs (default: yes). */
  supervise?: boolean;
  log: (line: string) => void;
  signal: AbortSignal;
}

const BEAT_MS = SUPERVISE_MS;
/** How often a driven run checks it is still this worker's and not cancelled. */
const OWNERSHIP_MS = 1_000;

interface Context {
  home: string;
  pool: pg.Pool;
  executor: string;
  log: (line: string) => void;
  stopping: boolean;
}

let context: Context | undefined;
/** The runs this process drives now, each with how to stop it and when it has stopped. */
const drives = new Map<string, { stop: () => void; settled: Promise<void> }>();

/**
 * The workflow: drives one run to rest on this worker (a first start or a takeover). A run that
 * cannot start here (its plan gone, an input refused) ends failed with that error in its record.
 */
async function neoRun(request: RunRequest): Promise<RunResult> {
  const ctx = context!;
  try {
    return await driveHere(ctx, request);
  } catch (error) {
    const reason =
      error instanceof NeoError
        ? { code: error.code, message: error.message }
        : { code: 'FLOW_EXECUTOR_ERROR', message: error instanceof Error ? error.message : String(error) };
    ctx.log(`run ${request.runId} failed to start here: ${reason.code} ${reason.message}`);
    await setRunStatus(ctx.pool, request.runId, 'failed', reason);
    return { runId: request.runId, status: 'failed', reason };
  }
}

async function driveHere(ctx: Context, request: RunRequest): Promise<RunResult> {
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const runId = DBOS.workflowID ?? request.runId;
  // A run cancelled and resumed at once can come back here before this process's drive of it
  // noticed the cancel (the workflow is this executor's again): that drive is stopped first.
  const previous = drives.get(runId);
  if (previous !== undefined) {
    previous.stop();
    await previous.settled;
  }
  const history = await runEvents(ctx.pool, runId);
  const done = history.findLast((e) => e.type === 'run.finished');
  // A finished run comes back only when `neo flow resume` rewound it (its status says so).
  if (done !== undefined && done.type === 'run.finished' && (await runStatus(ctx.pool, runId)) !== 'resuming')
    return { runId, status: done.status, ...reasonOf(done) };
  ctx.log(`${history.length === 0 ? 'start' : `take over (after event ${history.length})`} run ${runId}`);
  // This worker's copy of an earlier attempt (the same NEO_HOME): the record in Postgres is the run.
  rmSync(runDir(ctx.home, runId), { recursive: true, force: true });
  // A run with a remote starts from what the remote holds, never from the enqueuer's folders.
  const remote =
    request.remote === undefined
      ? undefined
      : await RemoteRun.open({
          home: ctx.home,
          runId,
          spec: request.remote,
          recorded: await stepCommits(ctx.pool, runId),
        });
  await setRunStatus(ctx.pool, runId, 'running');
  const abort = new AbortController();
  const stopOn = (why: string) => {
    ctx.log(`stop run ${runId}: ${why}`);
    abort.abort();
  };
  let settle!: () => void;
  // Set once another execution of the run owns it (see `ownership`): this drive then ends rather than parks.
  let superseded: string | undefined;
  const supersede = (why: string) => {
    superseded ??= why;
    stopOn(why);
  };
  const drive = { stop: () => supersede('resumed anew'), settled: new Promise<void>((r) => (settle = r)) };
  drives.set(runId, drive);
  const mirror = new EventMirror(ctx.pool, runId, ctx.executor, stopOn);
  const record = subflowRecord(ctx, runId, stopOn);
  const steps = dbosSteps(ctx.pool, runId, ctx.executor, remote);
  const sessions = new SessionMirror(ctx.pool, ctx.home, ctx.executor);
  // A run cancelled (`neo flow cancel`) or moved to another executor stops here, even while it waits.
  const watch = setInterval(() => {
    void ownership(ctx.pool, runId, ctx.executor)
      .then((lost) => {
        if (lost === undefined || abort.signal.aborted) return;
        if (lost.superseded) supersede(lost.why);
        else stopOn(lost.why);
      })
      .catch(() => undefined);
  }, OWNERSHIP_MS);
  const outcome = await startRun({
    home: ctx.home,
    cwd: remote?.cwd ?? request.cwd,
    planFile: remote?.planFile ?? request.planFile,
    // On a worker the plan's isolation protects nothing of the enqueuer's: its clone is the run's own.
    ...(remote === undefined ? {} : { isolation: 'worktree' as const, base: remote.start }),
    inputs: request.inputs,
    ...(request.backend === undefined ? {} : { backend: request.backend }),
    ...(request.yes === true ? { yes: true } : {}),
    signal: abort.signal,
    observer: (o) => {
      // An agent step's session (a sub-flow's too, under the sub-flow's run) is copied as it goes.
      if (o.type === 'progress' && o.progress.sessionId !== undefined)
        sessions.follow(o.progress.sessionId, o.runId, o.progress.step);
      if (o.depth === 0) {
        if (o.type === 'event') mirror.push(o.event);
        else if (o.type === 'run') {
          remote?.attach(o.record.workspace);
          void setRunPlan(ctx.pool, runId, o.plan).catch(() => undefined);
        }
      } else record.observe(o);
    },
    // An approval of a sub-flow is answered under the sub-flow's run (`neo flow approve <child>`).
    prompter: async (ask, stop) =>
      dbosSteps(ctx.pool, ask.runId, ctx.executor).waitForSignal<{ decision: string; note?: string; by?: string }>(
        approvalKey(ask.step, ask.asking),
        stop,
      ),
    // A run with a remote compiles the plan text and definitions of its base commit, pinned by git.
    engine: {
      runId,
      history,
      steps,
      child: record.child,
      ...(remote === undefined ? { pinPlan: planPin(ctx, runId) } : {}),
      pinProfile: (detect) => pinProfile(ctx.pool, runId, detect),
    },
  }).finally(() => clearInterval(watch));
  await mirror.flush().catch(() => undefined);
  await record.flush();
  await sessions.close();
  if (drives.get(runId) === drive) drives.delete(runId);
  settle();
  const lost: Lost | undefined =
    superseded === undefined
      ? await ownership(ctx.pool, runId, ctx.executor).catch(() => ({ why: 'the database is unreachable' }))
      : { why: superseded, superseded: true };
  if (lost?.why === 'cancelled')
    return { runId, status: 'failed', reason: { code: 'FLOW_CANCELLED', message: 'cancelled' } };
  if (lost?.superseded === true) {
    // DBOS records a workflow's result only for the execution that still owns it (PENDING, its
    // owner token), so what this returns is dropped and its queue slot is freed for the owner.
    ctx.log(`run ${runId}: this drive ended, the run goes on (${lost.why})`);
    return { runId, status: 'interrupted' };
  }
  if (ctx.stopping || mirror.fenced || record.fenced() || lost !== undefined || outcome.status === 'interrupted') {
    // Not an end of the run, and maybe still this execution's: returning would record it as done.
    // It stays PENDING for DBOS (this process is going, or the database could not say who has it).
    await new Promise(() => {});
  }
  if (remote !== undefined) {
    const result = await remote.finish();
    await setRunResult(ctx.pool, runId, result);
    ctx.log(`run ${runId}: result ${result.ref} = ${result.commit.slice(0, 12)} on ${result.remote}`);
  }
  await setRunStatus(ctx.pool, runId, outcome.status, outcome.reason);
  ctx.log(`run ${runId} ${outcome.status}`);
  return { runId, status: outcome.status, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) };
}

/**
 * The record of a run's sub-flows in PostgreSQL: each child run gets its row in neo.runs (linked
 * to its parent run and step, with its plan) and its events mirrored under its own id, fenced by
 * the top run's workflow; its steps are recorded under its id, and a worker that takes the run
 * over starts the sub-flow from its recorded events (a finished step is not run again).
 */
function subflowRecord(ctx: Context, top: string, stopOn: (why: string) => void) {
  const mirrors = new Map<string, EventMirror>();
  // The sub-flows' rows are written one after another, in the order their events came.
  let writes: Promise<unknown> = Promise.resolve();
  const mirrorOf = (runId: string) => {
    let mirror = mirrors.get(runId);
    if (mirror === undefined) {
      mirror = new EventMirror(ctx.pool, runId, ctx.executor, stopOn, top);
      mirrors.set(runId, mirror);
    }
    return mirror;
  };
  const write = (work: () => Promise<unknown>) => (writes = writes.then(work).catch(() => undefined));
  const child = async (runId: string): Promise<DurableRun> => {
    // This worker's copy of an earlier attempt: the record in Postgres is the sub-flow.
    rmSync(runDir(ctx.home, runId), { recursive: true, force: true });
    return {
      runId,
      history: await runEvents(ctx.pool, runId),
      steps: dbosSteps(ctx.pool, runId, ctx.executor),
      child,
      pinPlan: planPin(ctx, runId),
    };
  };
  return {
    child,
    observe(o: FlowObservation): void {
      if (o.type === 'run' && o.record.parent !== undefined) {
        const { runId, parent } = { runId: o.runId, parent: o.record.parent };
        const request = { runId, planFile: o.record.planFile, cwd: o.plan.projectDir, inputs: o.record.inputs };
        write(async () => {
          await insertChildRun(ctx.pool, runId, o.plan.name, parent, request);
          await setRunPlan(ctx.pool, runId, o.plan);
        });
      } else if (o.type === 'event') {
        mirrorOf(o.runId).push(o.event);
        if (o.event.type === 'run.finished') {
          const { status } = o.event;
          const { reason } = reasonOf(o.event);
          write(() => setRunStatus(ctx.pool, o.runId, status, reason));
        } else if (o.event.type === 'run.resumed') write(() => setRunStatus(ctx.pool, o.runId, 'running'));
      }
    },
    fenced: () => [...mirrors.values()].some((m) => m.fenced),
    async flush(): Promise<void> {
      await Promise.all([...mirrors.values()].map((m) => m.flush().catch(() => undefined)));
      await writes;
    },
  };
}

/**
 * The run's plan pinned at its first start: a takeover or a resume on any worker reads the plan
 * and the definitions from the project's folder again, which a confined step of the run could
 * write (in `inplace` isolation it is the checkout), so a start that compiled another plan runs
 * nothing of it.
 */
function planPin(ctx: Context, runId: string): (hash: string, file: string) => Promise<void> {
  return async (hash, file) => {
    const pinned = await pinPlanHash(ctx.pool, runId, hash, file);
    if (pinned !== hash)
      throw new UsageError(
        'FLOW_DEFINITIONS_CHANGED',
        `run ${runId} compiles to another plan than it started with: ${file}, a definition it uses, the project's .neo/neo.yaml or its .neo/.env changed since`,
        {
          hint: 'nothing of it ran on this start; start a new run with `neo flow run --engine dbos` to run what is there now',
        },
      );
  };
}

async function runStatus(pool: pg.Pool, runId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ status: string }>(`SELECT status FROM neo.runs WHERE run_id = $1`, [runId]);
  return rows[0]?.status;
}

interface Lost {
  why: string;
  /** Another execution owns the run now. */
  superseded?: boolean;
}

/**
 * Why this executor's drive of the run must stop, undefined while it is the run's: cancelled, or
 * `superseded` — put back on the queue (`neo flow resume` landing before this drive saw the
 * cancel, or the supervisor's recovery) or taken by another executor. DBOS then owns the run
 * under a new execution, so the old one is to end, not park.
 */
async function ownership(pool: pg.Pool, runId: string, executor: string): Promise<Lost | undefined> {
  const { rows } = await pool.query<{ status: string; executor_id: string }>(
    `SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1`,
    [runId],
  );
  const row = rows[0];
  if (row === undefined) return { why: 'its workflow is gone' };
  if (row.status === 'CANCELLED') return { why: 'cancelled' };
  if (row.status === 'ENQUEUED') return { why: 'put back on the queue', superseded: true };
  if (row.executor_id !== executor) return { why: `taken over by ${row.executor_id}`, superseded: true };
  return undefined;
}

function reasonOf(event: Extract<RunEvent, { type: 'run.finished' }>): { reason?: { code: string; message: string } } {
  return event.reason === undefined ? {} : { reason: { code: event.reason.code, message: event.reason.message } };
}

/** Runs a worker until `signal` aborts. */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const executor = options.executorId ?? `${hostname()}-${process.pid}`;
  const pool = openPool(options.url, options.concurrency * 3 + 4);
  try {
    await ensureSchema(pool, options.url);
    const { DBOS } = await import('@dbos-inc/dbos-sdk');
    context = { home: options.home, pool, executor, log: options.log, stopping: false };
    DBOS.setConfig({
      name: APP_NAME,
      systemDatabaseUrl: options.url,
      executorID: executor,
      applicationVersion: APP_VERSION,
      logLevel: 'error',
      systemDatabasePoolSize: options.concurrency * 2 + 6,
    });
    DBOS.registerWorkflow(neoRun, { name: WORKFLOW });
    await bounded(options.url, 60_000, () => DBOS.launch());
    await DBOS.registerQueue(QUEUE, {
      workerConcurrency: options.concurrency,
      minPollingIntervalMs: 200,
      onConflict: 'always_update',
    });
    await beat(pool, executor, options.concurrency);
    options.log(`worker ${executor} ready (concurrency ${options.concurrency})`);
    const timer = setInterval(() => {
      void beat(pool, executor, options.concurrency).catch((error: unknown) =>
        options.log(`heartbeat failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      if (options.supervise !== false)
        void superviseOnce(pool, executor, dbosWorkflows(DBOS), options.log).catch((error: unknown) =>
          options.log(`supervisor: ${error instanceof Error ? error.message : String(error)}`),
        );
    }, BEAT_MS);
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    clearInterval(timer);
    context.stopping = true;
    await pool.query(`DELETE FROM neo.workers WHERE executor_id = $1`, [executor]).catch(() => undefined);
    await DBOS.shutdown().catch(() => undefined);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

async function beat(pool: pg.Pool, executor: string, concurrency: number): Promise<void> {
  await pool.query(
    `INSERT INTO neo.workers (executor_id, host, pid, concurrency) VALUES ($1, $2, $3, $4)
     ON CONFLICT (executor_id) DO UPDATE SET beat_at = now()`,
    [executor, hostname(), process.pid, concurrency],
  );
}

/** The supervisor's view of DBOS from inside a launched executor. */
function dbosWorkflows(DBOS: typeof import('@dbos-inc/dbos-sdk').DBOS): Workflows {
  return {
    pending: async (id) => (await DBOS.listWorkflows({ status: 'PENDING', executorId: id })).map((w) => w.workflowID),
    requeue: async (id) => {
      await DBOS.resumeWorkflow(id, { queueName: QUEUE });
    },
  };
}

/** A worker cannot run without the database: the typed error, for the CLI. */
export function isEngineError(error: unknown): error is NeoError {
  return error instanceof NeoError && error.code.startsWith('ENGINE_');
}
