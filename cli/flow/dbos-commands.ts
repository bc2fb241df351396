/**
 * `neo flow run | list | show | approve | cancel --engine dbos`: the same commands on runs kept
 * in the dbos engine's database, from any machine that reaches it. Loaded only with
 * `--engine dbos` (DBOS and pg never load for a local run, `--help` or `validate`).
 */
import { resolve } from 'node:path';
import {
  initialRunState,
  newRunId,
  readyPlan,
  reduce,
  resolveInputs,
  type RunEvent,
  type RunState,
} from '../../engine/flow/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { checkId } from '../../engine/util/ids.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { userInfo, hostname } from 'node:os';
import { EXIT, exitCodeForCause } from '../exit-codes.js';
import { table, writeJson, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import type { DbosClient } from '../../engine/flow/engines/dbos/index.js';

export interface EngineFlags {
  databaseUrl?: string;
}

async function client(io: CommandIO, flags: EngineFlags): Promise<DbosClient> {
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  return new dbos.DbosClient(dbos.databaseUrl(neoHome(io.env), io.env, flags.databaseUrl));
}

/** A client of the database for `work`, closed after it. */
export async function using<T>(io: CommandIO, flags: EngineFlags, work: (c: DbosClient) => Promise<T>): Promise<T> {
  const c = await client(io, flags);
  try {
    return await work(c);
  } finally {
    await c.close();
  }
}

/** `neo flow run --engine dbos`: checks and enqueues the run, then (unless --detach) follows it. */
export async function runOnDbos(
  io: CommandIO,
  planFile: string,
  given: { inputs: Record<string, unknown>; textInputs: ReadonlySet<string> },
  flags: EngineFlags & {
    detach?: boolean;
    json?: boolean;
    runId?: string;
    backend?: string;
    yes?: boolean;
    remote?: string;
  },
): Promise<number> {
  const home = neoHome(io.env);
  const file = resolve(io.cwd, planFile);
  // Checked here, before anything is enqueued: a bad plan or input is this command's usage error.
  const ready = await readyPlan({
    planFile: file,
    cwd: io.cwd,
    home,
    requireBackend: true,
    ...(flags.backend ? { backendOverride: flags.backend } : {}),
  });
  const { values, problems } = resolveInputs(ready.plan.inputs, given.inputs, given.textInputs);
  if (problems.length > 0)
    throw new UsageError(
      problems[0]!.code,
      problems.map((p) => p.message).join('; '),
      problems[0]!.hint === undefined ? {} : { hint: problems[0]!.hint },
    );
  const subFlow = ready.plan.steps.find((step) => step.flow !== undefined);
  // A sub-flow's work reaches the remote only with its parent's next step, so a worker lost in
  // between would hand a successor a tree without it while the sub-flow's steps stay recorded:
  // a green run missing work. Refused until a sub-flow step records a result of its own.
  if (flags.remote !== undefined && subFlow !== undefined)
    throw new UsageError(
      'ENGINE_REMOTE_SUBFLOW',
      `step \`${subFlow.id}\` runs a sub-flow, which a run with --remote cannot keep across a worker's loss yet`,
      { hint: 'run this plan without --remote (workers sharing the project folder), or inline the sub-flow' },
    );
  const runId = flags.runId ?? newRunId();
  if (flags.runId !== undefined) checkId('run', flags.runId);
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  // The remote answers as a git repository before anything is enqueued (ENGINE_REMOTE_UNREACHABLE).
  const remote =
    flags.remote === undefined
      ? undefined
      : await dbos.prepareRemote({
          remote: flags.remote,
          cwd: io.cwd,
          planFile: file,
          projectDir: ready.plan.projectDir,
          ...(ready.plan.workspace.base === undefined ? {} : { base: ready.plan.workspace.base }),
        });
  return using(io, flags, async (c) => {
    const { enqueued } = await c.start(
      {
        runId,
        flow: ready.plan.name,
        planFile: file,
        cwd: io.cwd,
        inputs: values,
        ...(flags.backend ? { backend: flags.backend } : {}),
        ...(flags.yes ? { yes: true } : {}),
        ...(remote === undefined ? {} : { remote: remote.spec }),
      },
      remote === undefined ? undefined : () => dbos.publishBase(remote, runId),
    );
    const say = (text: string) => (flags.json ? undefined : writeLine(io.stdout, text));
    const where =
      remote === undefined
        ? undefined
        : { remote: remote.spec.url, ref: dbos.runRefs(runId).base, commit: remote.spec.base };
    if (flags.json)
      writeJsonLine(io.stdout, {
        type: 'enqueued',
        runId,
        flow: ready.plan.name,
        engine: 'dbos',
        fresh: enqueued,
        ...(where === undefined ? {} : { base: where }),
      });
    say(`run ${runId} · flow ${ready.plan.name} · ${enqueued ? 'enqueued' : 'already enqueued'} (dbos)`);
    if (where !== undefined) {
      say(`  base ${where.commit.slice(0, 12)} pushed to ${where.remote} (${where.ref})`);
      if (remote!.dirty) say('  uncommitted changes in the project are not in the base (it is a commit)');
    }
    if (flags.detach) {
      say(`  follow it: neo flow show ${runId} --engine dbos`);
      return EXIT.ok;
    }
    return follow(io, c, runId, flags);
  });
}

/** Prints a run's events from `after` until it finishes; its exit code is the run's. */
async function follow(
  io: CommandIO,
  c: DbosClient,
  runId: string,
  flags: { json?: boolean },
  after = 0,
): Promise<number> {
  const say = (text: string) => (flags.json ? undefined : writeLine(io.stdout, text));
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    for await (const event of c.follow(runId, controller.signal, after)) {
      if (flags.json) writeJsonLine(io.stdout, { type: 'event', runId, event });
      else {
        const line = eventLine(event);
        if (line !== undefined) say(line);
      }
    }
  } finally {
    process.removeListener('SIGINT', stop);
  }
  if (controller.signal.aborted) {
    say(`stopped following; the run goes on on its worker: neo flow show ${runId} --engine dbos`);
    return EXIT.interrupted;
  }
  const run = await c.run(runId);
  if (flags.json)
    writeJsonLine(io.stdout, { type: 'summary', runId, status: run.status, cause: run.reason?.code ?? null });
  say(`run ${runId} ${run.status}${run.reason ? `: ${run.reason.code} ${run.reason.message}` : ''}`);
  return run.status === 'succeeded' ? EXIT.ok : exitCodeForCause(run.reason?.code);
}

/**
 * `neo flow resume <run> --engine dbos`: a cancelled or failed run back on the queue under its
 * id (finished steps kept, the rest tried afresh), followed unless --detach.
 */
export async function resumeOnDbos(
  io: CommandIO,
  runId: string,
  flags: EngineFlags & { json?: boolean; detach?: boolean },
): Promise<number> {
  return using(io, flags, async (c) => {
    const before = (await c.events((await c.run(runId)).runId)).length;
    const run = await c.resume(runId);
    if (flags.json) writeJsonLine(io.stdout, { type: 'resumed', runId: run.runId, engine: 'dbos' });
    else writeLine(io.stdout, `run ${run.runId} · flow ${run.flow} · back on the queue (dbos)`);
    if (flags.detach) return EXIT.ok;
    return follow(io, c, run.runId, flags, before);
  });
}

function eventLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'step.started':
      return `  ${event.step}${event.item === undefined ? '' : `[${event.item}]`} started`;
    case 'step.completed':
      return `  ${event.step}${event.item === undefined ? '' : `[${event.item}]`} ${event.status}`;
    case 'run.resumed':
      return '  (taken over by another worker)';
    default:
      return undefined;
  }
}

export async function listOnDbos(io: CommandIO, flags: EngineFlags & { json?: boolean }): Promise<number> {
  const runs = await using(io, flags, (c) => c.list());
  if (flags.json) {
    writeJson(
      io.stdout,
      runs.map((r) => ({
        runId: r.runId,
        flow: r.flow,
        status: r.status,
        engine: 'dbos',
        executor: r.executor ?? null,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })),
    );
    return EXIT.ok;
  }
  if (runs.length === 0) writeLine(io.stdout, 'no dbos runs');
  else
    writeLine(
      io.stdout,
      table([['RUN', 'FLOW', 'STATUS', 'WORKER'], ...runs.map((r) => [r.runId, r.flow, r.status, r.executor ?? '-'])]),
    );
  return EXIT.ok;
}

export async function showOnDbos(
  io: CommandIO,
  runId: string,
  flags: EngineFlags & { json?: boolean; events?: boolean },
): Promise<number> {
  const { run, events, children, sessions } = await using(io, flags, async (c) => {
    const run = await c.run(runId);
    return {
      run,
      events: await c.events(run.runId),
      children: await c.children(run.runId),
      sessions: await c.sessions(run.runId),
    };
  });
  let state: RunState = initialRunState(run.runId, []);
  for (const event of events) state = reduce(state, event);
  const steps = state.steps.entries().map(([id, s]) => ({ id, status: s.status, attempt: s.attempt }));
  const given = run.request.remote;
  // A run with a remote: where its base is, and (once it ended) where its result is.
  const remote = given === undefined ? undefined : { url: given.url, base: given.base, result: run.result ?? null };
  if (flags.json) {
    writeJson(io.stdout, {
      runId: run.runId,
      flow: run.flow,
      engine: 'dbos',
      status: run.status,
      reason: run.reason ?? null,
      executor: run.executor ?? null,
      parent: run.parent ?? null,
      subflows: children.map((r) => ({ runId: r.runId, step: r.parent?.step, flow: r.flow, status: r.status })),
      steps,
      sessions: sessions.map((x) => ({
        sessionId: x.sessionId,
        step: x.step,
        worker: x.executor,
        status: x.record.status,
        events: x.events,
      })),
      ...(remote === undefined ? {} : { remote }),
      ...(flags.events ? { events } : {}),
    });
    return EXIT.ok;
  }
  writeLine(
    io.stdout,
    `run ${run.runId} · flow ${run.flow} · ${run.status} (dbos${run.executor ? `, worker ${run.executor}` : ''})${run.parent ? ` · sub-flow of ${run.parent.runId} (${run.parent.step})` : ''}`,
  );
  if (run.reason) writeLine(io.stdout, `  ${run.reason.code}: ${run.reason.message}`);
  if (remote !== undefined) {
    writeLine(io.stdout, `  remote ${remote.url}: base ${remote.base.slice(0, 12)}`);
    if (remote.result !== null)
      writeLine(io.stdout, `  result: ${remote.result.ref} = ${remote.result.commit} on ${remote.result.remote}`);
  }
  for (const s of steps) {
    writeLine(io.stdout, `  ${s.id}  ${s.status}`);
    // Its agent's code sessions, as the worker copied them (`neo sessions show <id> --engine dbos`).
    for (const x of sessions.filter((x) => x.step === s.id))
      writeLine(
        io.stdout,
        `    session ${x.sessionId} · ${x.record.status} · worker ${x.executor} · ${x.events} events`,
      );
  }
  for (const child of children)
    writeLine(io.stdout, `  ↳ ${child.parent?.step}: sub-flow run ${child.runId} · ${child.flow} · ${child.status}`);
  if (flags.events)
    for (const e of events) writeLine(io.stdout, `  ${e.seq} ${e.type}${'step' in e ? ` ${e.step}` : ''}`);
  return EXIT.ok;
}

export async function approveOnDbos(
  io: CommandIO,
  runId: string,
  step: string,
  flags: EngineFlags & { decision: string; note?: string; json?: boolean },
): Promise<number> {
  const by = `cli (${userInfo().username}@${hostname()})`;
  const run = await using(io, flags, (c) =>
    c.approve(runId, step, { decision: flags.decision, by, ...(flags.note === undefined ? {} : { note: flags.note }) }),
  );
  if (flags.json) writeJson(io.stdout, { runId: run.runId, step, decision: flags.decision, engine: 'dbos' });
  else writeLine(io.stdout, `✓ ${step} of run ${run.runId}: ${flags.decision} (the worker driving it picks it up)`);
  return EXIT.ok;
}

export async function cancelOnDbos(
  io: CommandIO,
  runId: string,
  flags: EngineFlags & { json?: boolean },
): Promise<number> {
  const run = await using(io, flags, async (c) => {
    await c.cancel(runId);
    return c.run(runId);
  });
  if (flags.json) writeJson(io.stdout, { runId: run.runId, status: run.status, engine: 'dbos' });
  else writeLine(io.stdout, `run ${run.runId}: ${run.status}`);
  return EXIT.ok;
}
