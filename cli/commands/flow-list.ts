import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import {
  costLabel,
  formatDuration,
  listRunsSettled,
  readRunPlan,
  readShownRun,
  runDir,
  simulatedCostUsd,
  tidyRuns,
  type RunRecord,
} from '../../engine/flow/index.js';
import { diskUse, formatBytes } from '../../engine/util/disk-use.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(
  io: CommandIO,
  options: { json?: boolean; engine?: string; databaseUrl?: string },
): Promise<number> {
  if (options.engine === 'dbos') return (await import('../flow/dbos-commands.js')).listOnDbos(io, options);
  const home = neoHome(io.env);
  for (const line of await tidyRuns(home)) writeLine(io.stderr, `note: ${line}`);
  const runs = await listRunsSettled(home);
  const disk = await Promise.all(runs.map((r) => runDiskUse(home, r)));
  const simulated = await Promise.all(runs.map((r) => simulatedOf(home, r)));
  if (options.json) {
    writeJson(
      io.stdout,
      runs.map((r, i) => ({
        runId: r.runId,
        flow: r.flow,
        status: r.status,
        ...(r.unverified ? { unverified: true } : {}),
        ...(r.status === 'tampered' ? { reason: r.reason ?? null } : {}),
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        ledger: r.ledger,
        parent: r.parent ?? null,
        workspace: r.workspace?.path ?? null,
        projectDir: r.workspace?.projectDir ?? null,
        diskBytes: disk[i],
        simulatedCostUsd: simulated[i],
      })),
    );
    return EXIT.ok;
  }
  if (runs.length === 0) {
    writeLine(io.stdout, 'no runs yet: start one with `neo flow run plan.yaml`');
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const color = (status: string) =>
    status === 'succeeded'
      ? p.green(status)
      : status === 'failed' || status === 'tampered'
        ? p.red(status)
        : p.yellow(status);
  const rows = runs.map((r, i) => {
    const steps = Object.values(r.steps);
    const done = steps.filter((s) => s.status === 'succeeded' || s.status === 'skipped').length;
    return [
      r.parent ? `  ↳ ${r.runId}` : r.runId,
      r.flow,
      // A run whose files failed their MAC shows `tampered`; one recorded before neo authenticated runs, unverified.
      `${color(r.status)}${r.unverified ? p.dim(' (unverified)') : ''}`,
      r.createdAt.replace('T', ' ').slice(0, 19),
      formatDuration(r.ledger.wallMs),
      costLabel(r.ledger.costUsd, simulated[i]),
      `${done}/${steps.length}`,
      formatBytes(disk[i]!),
      projectLabel(r.workspace?.projectDir, io.cwd, io.env.HOME),
    ];
  });
  writeLine(
    io.stdout,
    table([
      [
        p.dim('RUN'),
        p.dim('FLOW'),
        p.dim('STATUS'),
        p.dim('STARTED (UTC)'),
        p.dim('TIME'),
        p.dim('COST'),
        p.dim('STEPS'),
        p.dim('DISK'),
        p.dim('PROJECT'),
      ],
      ...rows,
    ]),
  );
  return EXIT.ok;
}

/**
 * Whose run it is, short: `.` for the project listed from, a path below it relative, any other
 * with the home as `~`. `neo init` names every project's flow check-and-fix, so the flow alone
 * does not tell one repository's runs from another's.
 */
function projectLabel(projectDir: string | undefined, cwd: string, home: string | undefined): string {
  if (projectDir === undefined) return '-';
  const here = realpathOr(cwd);
  const rel = relative(here, projectDir);
  if (rel === '') return '.';
  if (!rel.startsWith('..') && !isAbsolute(rel)) return rel;
  const inHome = home === undefined || home === '' ? undefined : relative(realpathOr(home), projectDir);
  return inHome !== undefined && !inHome.startsWith('..') && !isAbsolute(inHome) ? join('~', inHome) : projectDir;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * What a run takes on disk: its folder, plus its own worktree or copy (a sub-flow borrows its
 * parent's; an in-place run's workspace is the checkout, not the run's). `neo flow clean` frees it.
 */
async function runDiskUse(home: string, record: RunRecord): Promise<number> {
  const own =
    record.parent === undefined && record.workspace?.isolation !== 'inplace' ? record.workspace?.root : undefined;
  const seen = new Set<string>();
  return (await diskUse(runDir(home, record.runId), seen)) + (own === undefined ? 0 : await diskUse(own, seen));
}

/** The part of a run's cost its scripted backends reported (nothing was spent on it). */
async function simulatedOf(home: string, record: RunRecord): Promise<number> {
  if (record.ledger.costUsd === 0) return 0;
  // From the run's checked events (snapshot.json is never read back); a tampered run shows none.
  const [plan, shown] = await Promise.all([readRunPlan(home, record.runId), readShownRun(home, record.runId, record)]);
  return plan === null || shown.state === null ? 0 : simulatedCostUsd(plan, shown.state.steps);
}
