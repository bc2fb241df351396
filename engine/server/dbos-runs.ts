/**
 * The dbos engine's runs in the control plane (docs/scale-out.md): when `neo serve` has a
 * database (--database-url, NEO_DATABASE_URL or `neo db up`'s), the runs list and a run's view
 * show dbos runs beside the local ones, marked `engine: 'dbos'`, their state folded from the
 * events their workers mirrored to neo.run_events. The engine itself is not loaded here: the
 * CLI hands the server a {@link DbosRunSource}.
 *
 * A database that cannot be reached never holds up or breaks a page: the local runs are shown
 * with a notice saying so, and for {@link RETRY_AFTER_MS} after a failure the database is not
 * asked again (each request would otherwise wait out the connect timeout).
 */
import { initialRunState, reduce, type CompiledPlan, type RunEvent, type RunState } from '../flow/index.js';
import type { EventHub } from './hub.js';

/** What the server needs of the dbos engine (engines/dbos/run-view.ts gives it). */
export interface DbosRunSource {
  readonly where: string;
  list(): Promise<Array<{ row: DbosRow; events: RunEvent[] }>>;
  run(runId: string): Promise<{ row: DbosRow; events: RunEvent[]; plan: CompiledPlan | null } | undefined>;
  moved(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

export interface DbosRow {
  runId: string;
  flow: string;
  status: string;
  reason?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
  executor?: string;
  workflowStatus?: string;
  parent?: { runId: string; step: string };
  request: { planFile: string };
}

/** A dbos run as the runs list shows it: the fields of a local run record the UI reads, and its engine. */
export interface DbosRunSummary {
  runId: string;
  flow: string;
  status: string;
  engine: 'dbos';
  executor?: string;
  createdAt: string;
  updatedAt: string;
  planFile: string;
  ledger: RunState['ledger'];
  steps: Record<string, { status: string; verdict?: string }>;
  reason?: { code: string; message: string };
  parent?: { runId: string; step: string };
}

const RETRY_AFTER_MS = 10_000;
const POLL_MS = 2_000;

export class DbosRuns {
  #downUntil = 0;
  #notice: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #seen = new Map<string, number>();
  #polling = false;

  constructor(private readonly source: DbosRunSource) {}

  /** Why dbos runs are missing from what is shown (the database did not answer), if they are. */
  get notice(): string | undefined {
    return Date.now() < this.#downUntil ? this.#notice : undefined;
  }

  /** The dbos runs, or none (and {@link notice} set) when the database does not answer. */
  async list(): Promise<{ runs: DbosRunSummary[]; live: string[] }> {
    const viewed = await this.#guard(() => this.source.list());
    if (viewed === undefined) return { runs: [], live: [] };
    const runs = viewed.map(({ row, events }) => summary(row, fold(row.runId, events)));
    return { runs, live: viewed.filter(({ row }) => isLive(row)).map(({ row }) => row.runId) };
  }

  /** One dbos run with its folded state, undefined when there is none (or the database is down). */
  async run(
    runId: string,
  ): Promise<
    | { record: DbosRunSummary; state: RunState; events: RunEvent[]; plan: CompiledPlan | null; live: boolean }
    | undefined
  > {
    const viewed = await this.#guard(() => this.source.run(runId));
    if (viewed === undefined) return undefined;
    const state = fold(runId, viewed.events);
    return {
      record: summary(viewed.row, state),
      state,
      events: viewed.events,
      plan: viewed.plan,
      live: isLive(viewed.row),
    };
  }

  /** Publishes `flow_run_event` for every dbos run whose record grew, so pages showing it reload. */
  watch(hub: EventHub): void {
    this.#timer = setInterval(() => {
      if (this.#polling || Date.now() < this.#downUntil) return;
      this.#polling = true;
      void this.#guard(() => this.source.moved())
        .then((moved) => {
          for (const [runId, seq] of moved ?? [])
            if (this.#seen.get(runId) !== seq) {
              this.#seen.set(runId, seq);
              hub.publish('flow_run_event', { type: 'dbos', engine: 'dbos', runId, seq });
            }
        })
        .finally(() => (this.#polling = false));
    }, POLL_MS);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.source.close();
  }

  async #guard<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (Date.now() < this.#downUntil) return undefined;
    try {
      return await work();
    } catch (error) {
      this.#downUntil = Date.now() + RETRY_AFTER_MS;
      const why = error instanceof Error ? error.message : String(error);
      this.#notice = `dbos runs are not shown: the database at ${this.source.where} did not answer (${why}); only this machine's runs are listed`;
      return undefined;
    }
  }
}

function fold(runId: string, events: RunEvent[]): RunState {
  let state = initialRunState(runId, []);
  for (const event of events) state = reduce(state, event);
  return state;
}

function isLive(row: DbosRow): boolean {
  return row.workflowStatus === 'PENDING' && row.executor !== undefined;
}

function summary(row: DbosRow, state: RunState): DbosRunSummary {
  const steps: DbosRunSummary['steps'] = {};
  for (const [id, s] of state.steps.entries())
    steps[id] = { status: s.status, ...(s.verdict === undefined ? {} : { verdict: s.verdict }) };
  return {
    runId: row.runId,
    flow: row.flow,
    status: row.status,
    engine: 'dbos',
    ...(row.executor === undefined ? {} : { executor: row.executor }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    planFile: row.request.planFile,
    ledger: state.ledger,
    steps,
    ...(row.reason === undefined ? {} : { reason: row.reason }),
    ...(row.parent === undefined ? {} : { parent: row.parent }),
  };
}
