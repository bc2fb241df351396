import {
  costLabel,
  failureOutput,
  formatDuration,
  simulatedCostUsd,
  type RunOutcome,
} from '../../engine/flow/index.js';
import { NeoError } from '../../engine/util/errors.js';
import { continued, terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { EXIT, exitCodeFor, exitCodeForCause } from '../exit-codes.js';
import { painter, useColor, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { evidenceOf, failureOutputLines, ICONS, type FlowView } from './view.js';
import { defined } from '../../engine/util/defined.js';
import { asInvoked } from '../invocation.js';

/** The code of what ended a run unsuccessfully: the failed step's own code, not its wrapper's. */
export function causeOf(outcome: Pick<RunOutcome, 'status' | 'reason'>): string | undefined {
  if (outcome.status === 'succeeded') return undefined;
  if (outcome.status === 'interrupted') return 'FLOW_INTERRUPTED';
  return outcome.reason?.cause ?? outcome.reason?.code;
}

/** The exit code of a run: 0 only when it succeeded, else the one its cause means (cli/exit-codes.ts). */
export function exitCodeOf(outcome: Pick<RunOutcome, 'status' | 'reason'>): number {
  if (outcome.status === 'succeeded') return EXIT.ok;
  if (outcome.status === 'interrupted') return EXIT.interrupted;
  return exitCodeForCause(causeOf(outcome));
}

/**
 * With --json, an error that stops a command before its run ends (a bad plan, a bad input) is a
 * line too, carrying the same cause code and exit code a summary would; the error still reaches
 * bin's handler, which prints it and exits.
 */
export async function jsonErrors<T>(io: CommandIO, json: boolean, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (json) {
      const cause = error instanceof NeoError ? error.code : 'CLI_INTERNAL';
      const message = error instanceof Error ? error.message : String(error);
      // The hint the terminal prints (how to install bwrap, which command fixes it) belongs here too.
      const hint = error instanceof NeoError && error.hint !== undefined ? { hint: error.hint } : {};
      writeJsonLine(io.stdout, { type: 'error', cause, exitCode: exitCodeFor(error), message, ...hint });
    }
    throw error;
  }
}

/**
 * The final summary: each step's verdict and evidence, total cost and time, where the work is,
 * and what to do next (merge, resume). With --json, one `summary` line.
 */
export function printSummary(io: CommandIO, raw: RunOutcome, view: FlowView, options: { json?: boolean }): void {
  // What a step or an agent said is data: the human summary prints it through the terminal sanitiser.
  const outcome = options.json ? raw : terminalSafeDeep(raw);
  const { record, state } = outcome;
  // A run whose store failed cannot be resumed: no resume command is offered.
  const resume =
    outcome.status === 'succeeded' || exitCodeOf(outcome) === EXIT.storeUntrusted
      ? undefined
      : asInvoked(`neo flow resume ${outcome.runId}`);
  if (options.json) {
    const steps = outcome.plan.steps.map((s) => {
      const st = state.steps.get(s.id);
      return {
        id: s.id,
        kind: s.kind,
        status: st?.status ?? 'pending',
        verdict: st?.verdict ?? null,
        error: st?.error ?? null,
        outputs: st?.outputs ?? {},
      };
    });
    writeJsonLine(io.stdout, {
      type: 'summary',
      runId: outcome.runId,
      status: outcome.status,
      cause: causeOf(outcome) ?? null,
      exitCode: exitCodeOf(outcome),
      reason: outcome.reason ?? null,
      ledger: state.ledger,
      simulatedCostUsd: simulatedCostUsd(outcome.plan, state.steps),
      workspace: record.workspace ?? null,
      lines: outcome.summary?.lines ?? [],
      steps,
      ...(resume ? { resume } : {}),
    });
    return;
  }
  const p = painter(useColor(io.stdout, io.env));
  const ok = outcome.status === 'succeeded';
  const head = ok ? p.green('✓') : outcome.status === 'interrupted' ? p.yellow('⏸') : p.red('✗');
  const ledger = state.ledger;
  writeLine(io.stdout);
  writeLine(
    io.stdout,
    `${head} ${p.bold(outcome.plan.name)} ${outcome.status} in ${formatDuration(ledger.wallMs)} · ${costLabel(ledger.costUsd, simulatedCostUsd(outcome.plan, state.steps))} · ${ledger.turns} turn${ledger.turns === 1 ? '' : 's'}${ledger.tokens > 0 ? ` · ${ledger.tokens} tokens` : ''} · run ${outcome.runId}`,
  );
  const lines = view.runs.get(outcome.runId)?.steps;
  for (const step of outcome.plan.steps) {
    const st = state.steps.get(step.id);
    const status = st?.status ?? 'pending';
    const line = lines?.get(step.id);
    const evidence = evidenceOf({
      status,
      outputs: st?.outputs ?? {},
      simulated: step.agent?.simulated === true,
      ...defined({
        verdict: st?.verdict,
        skipReason: st?.skipReason,
        startedAt: line?.startedAt,
        endedAt: line?.endedAt,
      }),
    });
    const icon = ICONS[status] ?? '?';
    writeLine(
      io.stdout,
      `  ${status === 'succeeded' ? p.green(icon) : status === 'failed' || status === 'cancelled' ? p.red(icon) : p.dim(icon)} ${p.bold(step.id)}  ${evidence.join(' · ')}`,
    );
    if (st?.error !== undefined && status !== 'skipped' && status !== 'succeeded') {
      writeLine(io.stdout, continued(`      ${p.red(st.error.code)}: ${st.error.message}`));
      if (st.error.hint !== undefined) writeLine(io.stdout, `      ${p.cyan('hint')}: ${asInvoked(st.error.hint)}`);
    }
    for (const line of failureOutputLines(failureOutput(status, st?.outputs), p.dim))
      writeLine(io.stdout, `      ${line}`);
  }
  if (outcome.reason !== undefined && outcome.status !== 'interrupted')
    writeLine(io.stdout, continued(`  ${p.red('reason')}: ${outcome.reason.message}`));
  for (const line of outcome.summary?.lines ?? []) writeLine(io.stdout, `  ${asInvoked(line)}`);
  if (outcome.summary === undefined && record.workspace !== undefined)
    writeLine(io.stdout, `  workspace: ${record.workspace.path}`);
  if (resume !== undefined) writeLine(io.stdout, `  resume: ${p.cyan(resume)}`);
}
