import { formatDuration, type RunOutcome } from '../../engine/flow/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeLine, type CommandIO } from '../io.js';
import { evidenceOf, ICONS, type FlowView } from './flow-view.js';

/** The exit code of a run: 0 only when it succeeded. */
export function exitCodeOf(outcome: RunOutcome): number {
  if (outcome.status === 'succeeded') return EXIT.ok;
  if (outcome.status === 'interrupted') return EXIT.interrupted;
  return EXIT.failed;
}

/**
 * The final summary: each step's verdict and evidence, total cost and time, where the work is,
 * and what to do next (merge, resume). With --json, one `summary` line.
 */
export function printSummary(io: CommandIO, outcome: RunOutcome, view: FlowView, options: { json?: boolean }): void {
  const { record, state } = outcome;
  const resume = outcome.status === 'succeeded' ? undefined : `neo flow resume ${outcome.runId}`;
  if (options.json) {
    const steps = outcome.plan.steps.map((s) => {
      const st = state.steps[s.id];
      return {
        id: s.id,
        kind: s.kind,
        status: st?.status ?? 'pending',
        verdict: st?.verdict ?? null,
        error: st?.error ?? null,
        outputs: st?.outputs ?? {},
      };
    });
    io.stdout.write(
      `${JSON.stringify({ type: 'summary', runId: outcome.runId, status: outcome.status, reason: outcome.reason ?? null, ledger: state.ledger, workspace: record.workspace ?? null, lines: outcome.summary?.lines ?? [], steps, ...(resume ? { resume } : {}) })}\n`,
    );
    return;
  }
  const p = painter(useColor(io.stdout, io.env));
  const ok = outcome.status === 'succeeded';
  const head = ok ? p.green('✓') : outcome.status === 'interrupted' ? p.yellow('⏸') : p.red('✗');
  const ledger = state.ledger;
  writeLine(io.stdout);
  writeLine(
    io.stdout,
    `${head} ${p.bold(outcome.plan.name)} ${outcome.status} in ${formatDuration(ledger.wallMs)} · $${ledger.costUsd.toFixed(4)} · ${ledger.turns} turn${ledger.turns === 1 ? '' : 's'}${ledger.tokens > 0 ? ` · ${ledger.tokens} tokens` : ''} · run ${outcome.runId}`,
  );
  const lines = view.runs.get(outcome.runId)?.steps;
  for (const step of outcome.plan.steps) {
    const st = state.steps[step.id];
    const status = st?.status ?? 'pending';
    const line = lines?.get(step.id);
    const evidence = evidenceOf({
      status,
      outputs: st?.outputs ?? {},
      ...(st?.verdict === undefined ? {} : { verdict: st.verdict }),
      ...(st?.skipReason === undefined ? {} : { skipReason: st.skipReason }),
      ...(line?.startedAt === undefined ? {} : { startedAt: line.startedAt }),
      ...(line?.endedAt === undefined ? {} : { endedAt: line.endedAt }),
    });
    const icon = ICONS[status] ?? '?';
    writeLine(
      io.stdout,
      `  ${status === 'succeeded' ? p.green(icon) : status === 'failed' || status === 'cancelled' ? p.red(icon) : p.dim(icon)} ${p.bold(step.id)}  ${evidence.join(' · ')}`,
    );
    if (st?.error !== undefined && status !== 'skipped' && status !== 'succeeded') {
      writeLine(io.stdout, `      ${p.red(st.error.code)}: ${st.error.message}`);
      if (st.error.hint !== undefined) writeLine(io.stdout, `      ${p.cyan('hint')}: ${st.error.hint}`);
    }
  }
  if (outcome.reason !== undefined && outcome.status !== 'interrupted')
    writeLine(io.stdout, `  ${p.red('reason')}: ${outcome.reason.message}`);
  for (const line of outcome.summary?.lines ?? []) writeLine(io.stdout, `  ${line}`);
  if (outcome.summary === undefined && record.workspace !== undefined)
    writeLine(io.stdout, `  workspace: ${record.workspace.path}`);
  if (resume !== undefined) writeLine(io.stdout, `  resume: ${p.cyan(resume)}`);
}
