import { join } from 'node:path';
import { takeAnswer, writeAnswer } from '../../util/approval-answer.js';
import { awaitAnswer } from '../../util/await-answer.js';
import { checkId } from '../../util/ids.js';
import type { Decision } from '../core/plan.js';
import { mkdirPrivate } from '../../util/private-store.js';

/** An answer to an approval, from a terminal prompt, `neo flow approve`, or `--yes`. */
export interface ApprovalAnswer {
  decision: string;
  note?: string;
  /** Who answered: `tty`, `cli (user@host)`, `--yes`. */
  by: string;
  at: string;
}

/** A question put to a person at the terminal. */
export interface ApprovalAsk {
  runId: string;
  step: string;
  prompt: string;
  decisions: Decision[];
}

/** Asks at the terminal; resolves undefined when the terminal cannot ask (or the ask was cancelled). */
export type ApprovalPrompter = (
  ask: ApprovalAsk,
  signal: AbortSignal,
) => Promise<{ decision: string; note?: string } | undefined>;

/** The folder of a run's approval answers (and its personas' questions). */
export function approvalsDir(home: string, runId: string): string {
  return join(home, 'approvals', checkId('run', runId));
}

/** Where `neo flow approve` leaves an answer for a waiting run. */
export function approvalFile(home: string, runId: string, key: string): string {
  return join(approvalsDir(home, runId), `${checkId('approval', key)}.json`);
}

/** Writes an answer for a run's approval (from another terminal, the server), sealed with its MAC. */
export async function writeApproval(home: string, runId: string, key: string, answer: ApprovalAnswer): Promise<void> {
  await writeAnswer(home, approvalFile(home, runId, key), { runId, key }, answer);
}

/** Reads and removes a waiting answer, if there is one whose MAC checks (util/approval-answer.ts). */
export async function takeApproval(home: string, runId: string, key: string): Promise<ApprovalAnswer | undefined> {
  return takeAnswer(home, approvalFile(home, runId, key), { runId, key });
}

/**
 * Waits for an answer: one already left by `neo flow approve` (even while no process ran the
 * run), one arriving in NEO_HOME/approvals/<runId>/ (fs.watch, with a slow poll as a safety
 * net), or the terminal prompt — whichever comes first. Resolves undefined when `signal`
 * aborts (a timeout or an interrupt): an unanswered approval never approves itself.
 */
export async function waitForApproval(options: {
  home: string;
  ask: ApprovalAsk;
  key: string;
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
            return picked === undefined ? undefined : { ...picked, by: 'tty', at: new Date().toISOString() };
          },
        }),
  });
}
