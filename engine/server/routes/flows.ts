/**
 * Flow routes: the runs, one run with its step graph (the graph `neo flow graph` draws) and
 * every step's state, its events from a cursor, a person's answer to an approval, cancel (the
 * driving process interrupts the run, which stays resumable) and resume (a new `neo flow resume`
 * process, attached to this server like any other run).
 */
import type { Hono } from 'hono';
import { join } from 'node:path';
import {
  driverAlive,
  listRunsSettled,
  readRunRecord,
  readRunSettled,
  readRunShown,
  runDir,
  simulatedCostUsd,
  stepGraph,
  type CompiledPlan,
  type RunRecord,
} from '../../flow/index.js';
import { readJsonOrNull } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { processRedact, redactDeep } from '../../util/redact.js';
import { readBody } from '../bodies.js';
import type { ServerContext } from '../context.js';
import { HttpError } from '../envelope.js';
import { checkedId } from '../ids.js';
import { answerFromWeb } from './approvals.js';
import { intParam } from './query.js';
import { defined } from '../../util/defined.js';

const MAX_EVENTS = 10_000;

/** The plan's steps as a run's view lists them. */
function planSteps(plan: CompiledPlan) {
  return plan.steps.map((s) => ({
    id: s.id,
    name: s.name,
    kind: s.kind,
    group: s.group,
    needs: s.needs,
    ...(s.agent === undefined ? {} : { backend: s.agent.backend, persona: s.agent.persona }),
    ...(s.agent?.simulated === true ? { simulated: true } : {}),
    ...defined({ approval: s.approval }),
  }));
}

/** What a run route sends: its data with every secret this server knows of redacted (the store's files already are, by the run's own process). */
const redacted = <T>(data: T): { ok: true; data: T } => ({ ok: true, data: redactDeep(data, processRedact()) });

export function flowRoutes(app: Hono, ctx: ServerContext): void {
  const { home } = ctx;

  /** A local run, or undefined when there is none here and the server can look among dbos runs. */
  const orDbos = <T>(read: Promise<T>): Promise<T | undefined> =>
    read.catch((error: unknown) => {
      if (ctx.dbos !== undefined && error instanceof NeoError && error.code === 'FLOW_RUN_NOT_FOUND') return undefined;
      throw error;
    });
  const dbosRun = async (runId: string) => {
    const run = await ctx.dbos?.run(runId);
    if (run !== undefined) return run;
    const notice = ctx.dbos?.notice;
    if (notice !== undefined)
      throw new HttpError(503, 'ENGINE_DB_UNREACHABLE', notice, { hint: 'is the database up (`neo db status`)?' });
    throw new HttpError(404, 'FLOW_RUN_NOT_FOUND', `no run \`${runId}\` here nor in the dbos engine's database`);
  };
  /** A dbos run is steered from the CLI of any machine, not from this server. */
  const steeredElsewhere = async (runId: string, verb: 'cancel' | 'resume'): Promise<never> => {
    await dbosRun(runId);
    throw new HttpError(409, 'SERVER_DBOS_RUN', `run ${runId} lives on the dbos engine`, {
      hint: `${verb} it with \`neo flow ${verb} ${runId} --engine dbos\``,
    });
  };

  /** Whether a process drives the run now: one attached to this server, or its recorded pid. */
  const driven = (record: RunRecord) => ctx.attach.ownerOfRun(record.runId) !== undefined || driverAlive(record);

  // Local runs (engine `local`) and, with a database, the dbos engine's (engine `dbos`), newest
  // first; a database that does not answer leaves the local runs and a notice.
  app.get('/api/flows/runs', async (c) => {
    const [local, dbos] = await Promise.all([listRunsSettled(home), ctx.dbos?.list()]);
    const live = local.filter((r) => r.pid !== undefined && driven(r)).map((r) => r.runId);
    const runs = [...local.map((r) => ({ ...r, engine: 'local' as const })), ...(dbos?.runs ?? [])].sort((a, b) =>
      b.createdAt.localeCompare(a.createdAt),
    );
    const notice = ctx.dbos?.notice;
    return c.json(
      redacted({ runs, live: [...live, ...(dbos?.live ?? [])], ...defined({ notices: notice && [notice] }) }),
    );
  });

  app.get('/api/flows/runs/:id', async (c) => {
    const runId = checkedId('run', c.req.param('id'));
    // Checked: a run whose files do not check is shown tampered, with no state.
    const shown = await orDbos(readRunShown(home, runId));
    if (shown === undefined) {
      const run = await dbosRun(runId);
      return c.json(
        redacted({
          record: run.record,
          engine: 'dbos',
          ...(run.plan === null
            ? { graph: { nodes: [], edges: [] }, steps: [] }
            : { graph: stepGraph(run.plan), steps: planSteps(run.plan) }),
          state: run.state,
          simulatedCostUsd: run.plan === null ? 0 : simulatedCostUsd(run.plan, run.state.steps),
          seq: run.state.seq,
          live: run.live,
          stepSessions: {},
        }),
      );
    }
    const { record, state } = shown;
    const plan = await readJsonOrNull<CompiledPlan>(join(runDir(home, runId), 'plan.json'));
    if (plan === null) throw new NeoError('FLOW_RUN_NOT_FOUND', `run \`${runId}\` has no plan.json`);
    const seq = state?.seq ?? 0;
    return c.json(
      redacted({
        record,
        engine: 'local',
        graph: stepGraph(plan),
        steps: planSteps(plan),
        state,
        simulatedCostUsd: state === null ? 0 : simulatedCostUsd(plan, state.steps),
        seq,
        live: record.pid !== undefined && driven(record),
        stepSessions: ctx.stepSessions?.(runId) ?? {},
      }),
    );
  });

  app.get('/api/flows/runs/:id/events', async (c) => {
    const runId = checkedId('run', c.req.param('id'));
    const afterSeq = intParam(c.req.query('afterSeq'), 'afterSeq', 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(c.req.query('limit'), 'limit', MAX_EVENTS, MAX_EVENTS);
    const local = await orDbos(readRunShown(home, runId));
    if (local === undefined) {
      const events = (await dbosRun(runId)).events.filter((e) => e.seq > afterSeq);
      return c.json(redacted({ events: events.slice(0, limit), more: events.length > limit }));
    }
    const shown = local;
    if (shown.record.status === 'tampered' && shown.record.reason !== undefined) {
      const { code, message, hint } = shown.record.reason;
      throw new HttpError(409, code, message, { ...defined({ hint }) });
    }
    const events = shown.events.filter((e) => e.seq > afterSeq);
    return c.json(redacted({ events: events.slice(0, limit), more: events.length > limit }));
  });

  app.post('/api/flows/runs/:id/approvals/:key', async (c) =>
    c.json(await answerFromWeb(home, c.req.param('id'), c.req.param('key'), c.req.raw)),
  );

  app.post('/api/flows/runs/:id/cancel', async (c) => {
    const runId = checkedId('run', c.req.param('id'));
    await readBody(c.req.raw, 'empty');
    const record = (await orDbos(readRunSettled(home, runId))) ?? (await steeredElsewhere(runId, 'cancel'));
    const owner = ctx.attach.ownerOfRun(runId);
    if (owner !== undefined) {
      await owner.send({ type: 'cancel', runId });
      return c.json({ ok: true, data: { runId, cancelling: true, pid: owner.pid } });
    }
    if (driverAlive(record))
      throw new HttpError(
        409,
        'SERVER_RUN_NOT_ATTACHED',
        `run ${runId} is driven by process ${record.pid}, which is not attached to this server`,
        {
          hint: 'it was started before `neo serve`; interrupt it in its terminal (Ctrl-C)',
        },
      );
    throw new HttpError(409, 'FLOW_RUN_NOT_RUNNING', `run ${runId} is ${record.status}; nothing runs it`, {
      ...(record.status === 'succeeded' || record.status === 'failed' ? {} : { hint: 'resume it, or leave it' }),
    });
  });

  app.post('/api/flows/runs/:id/resume', async (c) => {
    const runId = checkedId('run', c.req.param('id'));
    await readBody(c.req.raw, 'empty');
    const record = (await orDbos(readRunRecord(home, runId))) ?? (await steeredElsewhere(runId, 'resume'));
    if (record.parent !== undefined)
      throw new HttpError(409, 'SERVER_SUBFLOW', `run ${runId} is a sub-flow of ${record.parent.runId}`, {
        hint: 'resume its parent run',
      });
    if (driven(record))
      throw new HttpError(409, 'FLOW_RUN_LIVE', `run ${runId} is still being driven`, { hint: 'cancel it first' });
    if (record.status === 'succeeded') throw new HttpError(409, 'FLOW_RUN_FINISHED', `run ${runId} already succeeded`);
    if (ctx.resumeRun === undefined)
      throw new HttpError(503, 'SERVER_NO_RESUME', 'this server cannot start `neo flow resume`');
    const started = await ctx.resumeRun(runId);
    return c.json({ ok: true, data: { runId, ...started } }, 202);
  });
}
