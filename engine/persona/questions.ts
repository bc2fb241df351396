/**
 * Questions a persona puts to a person: at the terminal when there is one, and always as a
 * pending question another terminal can answer with `neo flow approve <runId> <key> --decision
 * <id>`. The files sit where the flow engine keeps approval answers —
 * `NEO_HOME/approvals/<runId>/<key>.question.json` beside the answer `<key>.json` — so one
 * command answers both. An unanswered question never answers itself: an abort leaves it denied.
 */
import { join } from 'node:path';
import { AnswerTakenError, claimAnswer, readAnswer, reopenAnswer } from '../util/approval-answer.js';
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
      // A key asked again (a retried step's new decider counts from q1) starts with no answer:
      // the one left is the last question's, and is removed before this question can be answered.
      await reopenAnswer(answerFile(options.home, question.runId, question.key));
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
        // Kept, closed: a late answer is then told who answered (or that nobody will now).
        await writeJsonAtomic(questionFile(options.home, question.runId, question.key), {
          ...question,
          closedAt: new Date().toISOString(),
        });
      }
    },
  };
}

/** A question put to a person, waiting or closed (`open`: whether it still waits for an answer). */
export async function askedQuestion(
  home: string,
  runId: string,
  key: string,
): Promise<{ question: Question; open: boolean } | undefined> {
  // A run-id prefix names no question file (flow approve then resolves it as a flow run).
  if (!isId('run', runId) || !isId('approval', key)) return undefined;
  const file = await readJsonOrNull<Question & { closedAt?: string }>(questionFile(home, runId, key)).catch(() => null);
  if (file === null || !Array.isArray(file.decisions)) return undefined;
  const { closedAt, ...question } = file;
  return { question, open: closedAt === undefined };
}

/** A question waiting for an answer, if there is one. */
export async function pendingQuestion(home: string, runId: string, key: string): Promise<Question | undefined> {
  const asked = await askedQuestion(home, runId, key);
  return asked?.open === true ? asked.question : undefined;
}

/**
 * Answers a question from another terminal (`neo flow approve`, the server); checks the
 * decision. The first answer wins: a later one throws PERSONA_QUESTION_ANSWERED naming it.
 */
export async function answerQuestion(
  home: string,
  runId: string,
  key: string,
  answer: { decision: string; note?: string; by?: string },
): Promise<Question> {
  const asked = await askedQuestion(home, runId, key);
  if (asked === undefined)
    throw new UsageError('PERSONA_NO_QUESTION', `run ${runId} has no pending question \`${key}\``);
  const { question } = asked;
  if (!asked.open) {
    const there = await readAnswer(home, answerFile(home, runId, key), { runId, key });
    if (there !== undefined)
      throw new AnswerTakenError('PERSONA_QUESTION_ANSWERED', `question \`${key}\` of run ${runId}`, there);
    throw new UsageError(
      'PERSONA_QUESTION_CLOSED',
      `question \`${key}\` of run ${runId} no longer waits for an answer`,
      {
        hint: 'the run that asked it stopped; it asks again when it runs again',
      },
    );
  }
  const ids = question.decisions.map((d) => d.id);
  if (!ids.includes(answer.decision))
    throw new UsageError('PERSONA_UNKNOWN_DECISION', `\`${answer.decision}\` is not a decision of \`${key}\``, {
      hint: `choose one of: ${ids.join(', ')}`,
    });
  const claim = await claimAnswer(home, answerFile(home, runId, key), { runId, key }, {
    decision: answer.decision,
    ...defined({ note: answer.note }),
    by: answer.by ?? `cli (${safeUser()})`,
    at: new Date().toISOString(),
  } satisfies HumanAnswer);
  if (!claim.won)
    throw new AnswerTakenError('PERSONA_QUESTION_ANSWERED', `question \`${key}\` of run ${runId}`, claim.answer);
  return question;
}

/** The answer left for `question`, if its MAC checks (util/approval-answer.ts) and it is one of its decisions. */
async function takeQuestionAnswer(home: string, question: Question): Promise<HumanAnswer | undefined> {
  const path = answerFile(home, question.runId, question.key);
  const answer = await readAnswer(home, path, { runId: question.runId, key: question.key });
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
            if (picked === undefined) return undefined;
            // The terminal races every other answerer through the same check-and-set.
            const answer = { ...picked, by: 'tty', at: new Date().toISOString() };
            const claim = await claimAnswer(home, answerFile(home, question.runId, question.key), question, answer);
            return claim.answer;
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
