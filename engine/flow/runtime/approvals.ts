import { join } from 'node:path';
import { AnswerTakenError, claimAnswer, readAnswer, reopenAnswer } from '../../util/approval-answer.js';
import { awaitAnswer } from '../../util/await-answer.js';
import { checkId } from '../../util/ids.js';
import type { CompiledPlan, Decision } from '../core/plan.js';
import { isTerminal, type RunState } from '../core/state.js';
import { mkdirPrivate } from '../../util/private-store.js';
import { approvalsDir } from '../store/run-files.js';

/** An answer to an approval, from a terminal prompt, `neo flow approve`, or `--yes`. */
export interface ApprovalAnswer {
  decision: string;
  note?: string;
  /** Who answered: `tty`, `cli (user@host)`, `--yes`. */
  by: string;
  at: string;
  /** Which asking it answers ({@link askingOf}); a retried or looped approval asks again. */
  asking?: string;
}

/** A question put to a person at the terminal. */
export interface ApprovalAsk {
  runId: string;
  step: string;
  prompt: string;
  decisions: Decision[];
  /**
   * Which asking this is ({@link askingOf}), when a flow's approval step asks: a durable engine
   * keys its answer by it, so a retry's or loop's new asking is never answered by an old one.
   */
  asking?: string;
}

/**
 * Names one asking of an approval: a retry asks again with the next attempt, a loop with the
 * next iteration, a resumed attempt keeps its own. What an answer is stamped with, from the
 * unit's folded state (the attempt it is in or about to start) or the execution asking.
 */
export function askingOf(unit: { attempt: number; iteration: number }): string {
  return `attempt ${unit.attempt} of iteration ${unit.iteration}`;
}

/** The asking a unit (`step` or `step[i]`) of a folded run is in or about to start. */
export function askingIn(state: RunState, key: string): string {
  const match = /^(.+?)(?:\[(\d+)\])?$/.exec(key);
  const step = state.steps.get(match?.[1] ?? key);
  const unit = match?.[2] === undefined ? step : step?.units?.[Number(match[2])];
  return askingOf(unit ?? { attempt: 1, iteration: 1 });
}

/** Asks at the terminal; resolves undefined when the terminal cannot ask (or the ask was cancelled). */
export type ApprovalPrompter = (
  ask: ApprovalAsk,
  signal: AbortSignal,
) => Promise<{ decision: string; note?: string; by?: string } | undefined>;

export { approvalsDir };

/** Where `neo flow approve` leaves an answer for a waiting run. */
export function approvalFile(home: string, runId: string, key: string): string {
  return join(approvalsDir(home, runId), `${checkId('approval', key)}.json`);
}

/**
 * Leaves an answer for a run's approval (from another terminal, the server, the terminal prompt),
 * sealed with its MAC, unless one is there already: then it throws FLOW_APPROVAL_ANSWERED naming
 * the answer that won (util/approval-answer.ts is the check-and-set).
 */
export async function writeApproval(home: string, runId: string, key: string, answer: ApprovalAnswer): Promise<void> {
  const claim = await claimAnswer(home, approvalFile(home, runId, key), { runId, key }, answer);
  if (!claim.won) throw new AnswerTakenError('FLOW_APPROVAL_ANSWERED', `\`${key}\` of run ${runId}`, claim.answer);
}

/** The answer left for an approval, if there is one whose MAC checks; it stays the answer of record. */
export async function takeApproval(home: string, runId: string, key: string): Promise<ApprovalAnswer | undefined> {
  return readAnswer(home, approvalFile(home, runId, key), { runId, key });
}

/** Removes a consumed answer before its approval is asked again (a resumed or retried step). */
export async function reopenApproval(home: string, runId: string, key: string): Promise<void> {
  await reopenAnswer(approvalFile(home, runId, key));
}

/**
 * Before a resume: every approval whose unit already finished has consumed its answer, and a
 * resume that runs it again (a rejected approval, `--rerun`) asks afresh — its old answer is
 * removed. An approval still open keeps an answer left while no process ran the run.
 */
export async function reopenFinishedApprovals(home: string, plan: CompiledPlan, state: RunState): Promise<void> {
  for (const step of plan.steps) {
    if (step.kind !== 'approval') continue;
    const folded = state.steps.get(step.id);
    const units =
      folded?.units === undefined
        ? [[step.id, folded] as const]
        : folded.units.map((u, i) => [`${step.id}[${i}]`, u] as const);
    for (const [key, unit] of units)
      if (unit !== undefined && isTerminal(unit.status)) await reopenApproval(home, state.runId, key);
  }
}

/**
 * Waits for an answer: one already left by `neo flow approve` (even while no process ran the
 * run; it stays, the answer of record), one arriving in NEO_HOME/approvals/<runId>/ (fs.watch, with a slow poll as a safety
 * net), or the terminal prompt — whichever comes first. Resolves undefined when `signal`
 * aborts (a timeout or an interrupt): an unanswered approval never approves itself.
 */
export async function waitForApproval(options: {
  home: string;
  ask: ApprovalAsk;
  key: string;
  /** The asking this wait is ({@link askingOf}); the terminal's answer is stamped with it. */
  asking: string;
  signal: AbortSignal;
  prompter?: ApprovalPrompter;
}): Promise<ApprovalAnswer | undefined> {
  const { home, ask, key, signal } = options;
  const dir = approvalsDir(home, ask.runId);
  await mkdirPrivate(dir);
  const early = await takeApproval(home, ask.runId, key);
  if (early !== undefined) return early;
  if (signal.aborted) return undefined;

  const prompter = options.prompter;
  return awaitAnswer<ApprovalAnswer>({
    dir,
    take: () => takeApproval(home, ask.runId, key),
    signal,
    ...(prompter === undefined
      ? {}
      : {
          ask: async (stop: AbortSignal) => {
            const picked = await prompter(ask, stop);
            if (picked === undefined) return undefined;
            // The terminal races every other answerer through the same check-and-set.
            // A durable engine's signal names who answered; the terminal is `tty`.
            const answer = {
              ...picked,
              by: picked.by ?? 'tty',
              at: new Date().toISOString(),
              asking: options.asking,
            };
            const claim = await claimAnswer(
              home,
              approvalFile(home, ask.runId, key),
              { runId: ask.runId, key },
              answer,
            );
            return claim.answer;
          },
        }),
  });
}
