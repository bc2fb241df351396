/**
 * Questions a persona puts to a person: at the terminal when there is one, and always as a
 * pending question another terminal can answer with `neo flow approve <runId> <key> --decision
 * <id>`. The files sit where the flow engine keeps approval answers —
 * `NEO_HOME/approvals/<runId>/<key>.question.json` beside the answer `<key>.json` — so one
 * command answers both. An unanswered question never answers itself: an abort leaves it denied.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { takeAnswer, writeAnswer } from '../util/approval-answer.js';
import { awaitAnswer } from '../util/await-answer.js';
import { userInfo } from 'node:os';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import { UsageError } from '../util/errors.js';
import { checkId, isId } from '../util/ids.js';
import { defined } from '../util/defined.js';

/** One question. */
export interface Question {
  /** The run it belongs to (a flow run id, or the persona run's own id). */
  runId: string;
  /** Unique within the run (`q1`, `fix-q2`). */
  key: string;
  prompt: string;
  /** Context lines (the tool input, the check's output). */
  detail?: string;
  decisions: Array<{ id: string; label: string }>;
}

/** A person's answer. */
export interface HumanAnswer {
  decision: string;
  note?: string;
  /** `tty`, `cli (user)`. */
  by: string;
  at: string;
}

/** Asks at a terminal; resolves undefined when it cannot (or the ask was cancelled). */
export type TerminalAsk = (
  question: Question,
  signal: AbortSignal,
) => Promise<{ decision: string; note?: string } | undefined>;

/** What a human decider uses to ask. */
export interface HumanAsker {
  ask(question: Question, signal: AbortSignal): Promise<HumanAnswer>;
}

function questionFile(home: string, runId: string, key: string): string {
  return join(home, 'approvals', checkId('run', runId), `${checkId('approval', key)}.question.json`);
}

function answerFile(home: string, runId: string, key: string): string {
  return join(home, 'approvals', checkId('run', runId), `${checkId('approval', key)}.json`);
}

/** The command that answers a question from another terminal. */
export function answerCommand(question: Pick<Question, 'runId' | 'key' | 'decisions'>): string {
  return `neo flow approve ${question.runId} ${question.key} --decision ${question.decisions.map((d) => d.id).join('|')}`;
}

/**
 * An asker over the pending-question files, racing the terminal prompt when one is given.
 * `onWaiting` is told once per question, with the command that answers it.
 */
export function pendingQuestionAsker(options: {
  home: string;
  terminal?: TerminalAsk;
  onWaiting?: (question: Question, command: string) => void;
}): HumanAsker {
  return {
    async ask(question, signal) {
      await writeJsonAtomic(questionFile(options.home, question.runId, question.key), {
        ...question,
        askedAt: new Date().toISOString(),
      });
      options.onWaiting?.(question, answerCommand(question));
      try {
        const answer = await waitForAnswer(options.home, question, signal, options.terminal);
        if (answer === undefined) throw new Error(`no answer to \`${question.key}\` (the run was stopped)`);
        return answer;
      } finally {
        await rm(questionFile(options.home, question.runId, question.key), { force: true });
      }
    },
  };
}

/** A question waiting for an answer, if there is one. */
export async function pendingQuestion(home: string, runId: string, key: string): Promise<Question | undefined> {
  // A run-id prefix names no question file (flow approve then resolves it as a flow run).
  if (!isId('run', runId) || !isId('approval', key)) return undefined;
  const question = await readJsonOrNull<Question>(questionFile(home, runId, key)).catch(() => null);
  return question !== null && Array.isArray(question.decisions) ? question : undefined;
}

/** Answers a pending question from another terminal (`neo flow approve`); checks the decision. */
export async function answerQuestion(
  home: string,
  runId: string,
  key: string,
  answer: { decision: string; note?: string; by?: string },
): Promise<Question> {
  const question = await pendingQuestion(home, runId, key);
  if (question === undefined)
    throw new UsageError('PERSONA_NO_QUESTION', `run ${runId} has no pending question \`${key}\``);
  const ids = question.decisions.map((d) => d.id);
  if (!ids.includes(answer.decision))
    throw new UsageError('PERSONA_UNKNOWN_DECISION', `\`${answer.decision}\` is not a decision of \`${key}\``, {
      hint: `choose one of: ${ids.join(', ')}`,
    });
  await writeAnswer(home, answerFile(home, runId, key), { runId, key }, {
    decision: answer.decision,
    ...defined({ note: answer.note }),
    by: answer.by ?? `cli (${safeUser()})`,
    at: new Date().toISOString(),
  } satisfies HumanAnswer);
  return question;
}

/** The answer left for `question`, if its MAC checks (util/approval-answer.ts) and it is one of its decisions. */
async function takeQuestionAnswer(home: string, question: Question): Promise<HumanAnswer | undefined> {
  const path = answerFile(home, question.runId, question.key);
  const answer = await takeAnswer(home, path, { runId: question.runId, key: question.key });
  return answer !== undefined && question.decisions.some((d) => d.id === answer.decision) ? answer : undefined;
}

function waitForAnswer(
  home: string,
  question: Question,
  signal: AbortSignal,
  terminal: TerminalAsk | undefined,
): Promise<HumanAnswer | undefined> {
  return awaitAnswer<HumanAnswer>({
    dir: join(home, 'approvals', question.runId),
    take: () => takeQuestionAnswer(home, question),
    signal,
    ...(terminal === undefined
      ? {}
      : {
          ask: async (stop: AbortSignal) => {
            const picked = await terminal(question, stop);
            return picked === undefined ? undefined : { ...picked, by: 'tty', at: new Date().toISOString() };
          },
        }),
  });
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
