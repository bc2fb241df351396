import {
  costLabel,
  failureOutput,
  formatDuration,
  readRunPlan,
  readRunShown,
  simulatedCostUsd,
  type StepState,
} from '../../engine/flow/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { continued, oneLine, terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { painter, table, useColor, writeJson, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { evidenceOf, failureOutputLines, ICONS } from '../flow/view.js';
import { defined } from '../../engine/util/defined.js';
import { asInvoked } from '../invocation.js';
import { runIdOrLatest } from '../flow/run-arg.js';
import { UsageError } from '../../engine/util/errors.js';

export async function run(
  io: CommandIO,
  given: string | undefined,
  options: { json?: boolean; diff?: boolean; events?: boolean; engine?: string; databaseUrl?: string },
): Promise<number> {
  if (options.engine === 'dbos') {
    if (given === undefined)
      throw new UsageError('CLI_RUN_ID_REQUIRED', 'name the run to show on the dbos engine', {
        hint: 'its runs are listed by `neo flow list --engine dbos`',
      });
    return (await import('../flow/dbos-commands.js')).showOnDbos(io, given, options);
  }
  const home = neoHome(io.env);
  const runId = await runIdOrLatest(io, home, given);
  // Shown from its authenticated events; a run whose files do not check is shown tampered.
  const shown = await readRunShown(home, runId);
  const plan = await readRunPlan(home, shown.record.runId);
  if (options.json) {
    writeJson(io.stdout, { record: shown.record, state: shown.state, events: shown.events });
    return EXIT.ok;
  }
  // What the run's steps and agents said is data: printed through the terminal sanitiser.
  const { record, state, events } = terminalSafeDeep(shown);
  const p = painter(useColor(io.stdout, io.env));
  const color = (s: string) =>
    s === 'succeeded' ? p.green(s) : s === 'failed' || s === 'tampered' ? p.red(s) : p.yellow(s);
  writeLine(
    io.stdout,
    `${p.bold(record.runId)} · flow ${record.flow} · ${color(record.status)}${record.unverified ? ' (unverified: recorded before neo authenticated runs)' : ''}${record.parent ? ` · sub-flow of ${record.parent.runId} (${record.parent.step})` : ''}`,
  );
  writeLine(io.stdout, `  plan: ${record.planFile}`);
  writeLine(
    io.stdout,
    `  started ${record.createdAt} · ${formatDuration(record.ledger.wallMs)} · ${costLabel(record.ledger.costUsd, plan === null || state === null ? 0 : simulatedCostUsd(plan, state.steps))} · ${record.ledger.turns} turn${record.ledger.turns === 1 ? '' : 's'} · ${record.ledger.tokens} tokens · ${record.segments.length} process${record.segments.length === 1 ? '' : 'es'}`,
  );
  if (Object.keys(record.inputs).length > 0)
    writeLine(
      io.stdout,
      `  inputs: ${Object.entries(record.inputs)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ')}`,
    );
  if (record.segments.some((s) => s.yes))
    writeLine(io.stdout, `  ${p.yellow('approvals were pre-approved with --yes')}`);
  if (record.reason) {
    writeLine(io.stdout, continued(`  ${p.red('reason')}: ${record.reason.code}: ${record.reason.message}`));
    if (record.reason.hint !== undefined) writeLine(io.stdout, `  ${p.cyan('hint')}: ${asInvoked(record.reason.hint)}`);
  }
  for (const line of record.summary?.lines ?? (record.workspace ? [`workspace: ${record.workspace.path}`] : []))
    writeLine(io.stdout, `  ${asInvoked(line)}`);
  const steps = state?.steps;
  const rows = [[p.dim(''), p.dim('STEP'), p.dim('STATUS'), p.dim('RUNS'), p.dim('EVIDENCE')]];
  for (const [id, summary] of Object.entries(record.steps)) {
    const st: StepState | undefined = steps?.get(id);
    const status = st?.status ?? summary.status;
    const evidence = evidenceOf({
      status,
      outputs: st?.outputs ?? {},
      simulated: plan?.steps.find((s) => s.id === id)?.agent?.simulated === true,
      ...defined({ verdict: st?.verdict, skipReason: st?.skipReason }),
      ...(st?.startedAt === undefined ? {} : { startedAt: Date.parse(st.startedAt) }),
      ...(st?.endedAt === undefined ? {} : { endedAt: Date.parse(st.endedAt) }),
    });
    const error =
      st?.error && status !== 'succeeded' && status !== 'skipped'
        ? ` · ${st.error.code}: ${oneLine(st.error.message)}`
        : '';
    rows.push([
      ICONS[status] ?? '?',
      id,
      color(status),
      String(st?.executions ?? 0),
      `${evidence.join(' · ')}${error}`,
    ]);
  }
  writeLine(io.stdout, table(rows));
  // Why each failed step failed, in its check's or command's own words (a foreach item's too),
  // and what to do about it.
  for (const [id, st] of steps?.entries() ?? []) {
    const units =
      st.units === undefined ? [[id, st] as const] : st.units.map((unit, i) => [`${id}[${i}]`, unit] as const);
    for (const [key, unit] of units) {
      const lines = failureOutputLines(failureOutput(unit.status, unit.outputs), p.dim);
      const hint = unit.status === 'failed' ? unit.error?.hint : undefined;
      if (lines.length === 0 && hint === undefined) continue;
      writeLine(io.stdout, `  ${p.red(ICONS.failed ?? '✗')} ${key}: ${lines[0] ?? `${unit.error?.code}`}`);
      for (const line of lines.slice(1)) writeLine(io.stdout, `      ${line}`);
      if (hint !== undefined) writeLine(io.stdout, `      ${p.cyan('hint')}: ${hint}`);
    }
  }
  for (const waiting of record.waiting ?? []) {
    writeLine(
      io.stdout,
      `  ${p.yellow('⏸')} ${waiting.step}: ${waiting.prompt} — neo flow approve ${record.runId} ${waiting.step} --decision ${waiting.decisions.join('|')}`,
    );
  }
  if (options.diff) {
    for (const [id, st] of steps?.entries() ?? []) {
      const diff = st.outputs?.diff as { unified?: string; summary?: string } | undefined;
      if (diff?.unified) writeLine(io.stdout, `\n${p.bold(`── ${id}: ${diff.summary ?? ''}`)}\n${diff.unified}`);
    }
  }
  if (options.events) for (const event of events) writeJsonLine(io.stdout, event);
  // A tampered run's reason already says what to do (its hint, above); an unverified one is never resumed.
  if (
    record.status !== 'tampered' &&
    record.unverified !== true &&
    record.status !== 'succeeded' &&
    record.status !== 'running' &&
    record.status !== 'waiting'
  )
    writeLine(io.stdout, `  resume: ${asInvoked(`neo flow resume ${record.runId}`)}`);
  return EXIT.ok;
}
