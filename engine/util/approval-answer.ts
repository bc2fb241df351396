/**
 * A person's answer left in a file for a process that waits on it (a flow's approval, a driving
 * persona's question): `NEO_HOME/approvals/<runId>/<key>.json`, written by `neo flow approve`,
 * the server and the terminal prompt. The file carries a MAC (util/store-key.ts) over the run,
 * the key and the answer, so an answer that anything else wrote — a step that reached NEO_HOME,
 * a copy from another question — is never acted on: it is removed and the wait goes on.
 *
 * The file is also the check-and-set of an ask: it is created whole with `link()`, which fails
 * when the name exists, so of two answers racing from any processes exactly one lands and the
 * other learns which did. The waiting process reads the answer and leaves it in place: the file
 * stays the answer of record until the same question is asked again ({@link reopenAnswer}), so a
 * late answer can never be told "ok" after the run has followed another one.
 */
import { link, open, readFile, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { macMatches, macOf, storeKey } from './store-key.js';
import { mkdirPrivate, PRIVATE_FILE_MODE } from './private-store.js';
import { UsageError } from './errors.js';

const DOMAIN = 'neo.approval-answer.v1';

/** What a person answered. */
export interface Answer {
  decision: string;
  note?: string;
  /** Who answered: `tty`, `cli (user)`, `web (…)`. */
  by: string;
  at: string;
  /**
   * Which asking of the question it answers (`attempt 2 of iteration 1`), when the question can
   * be asked again under the same key (a retried or looped approval): an answer for an earlier
   * asking is no answer to a later one, even found after a restart.
   */
  asking?: string;
}

/** What the MAC covers besides the answer: which question of which run it answers. */
export interface AnswerScope {
  runId: string;
  key: string;
}

/** What a claim got: this answer is the one (`won`), or another was there first (`answer`). */
export type ClaimResult = { won: true; answer: Answer } | { won: false; answer: Answer };

/**
 * Leaves `answer` as the one answer to this question, unless one is already there: the sealed
 * file is written under a temporary name and linked into place, so it appears whole or not at
 * all and only the first link wins. A file there whose MAC does not check is no answer: it is
 * removed and the claim tried again.
 */
export async function claimAnswer(
  home: string,
  path: string,
  scope: AnswerScope,
  answer: Answer,
): Promise<ClaimResult> {
  const fields = answerFields(answer);
  const sealed = { ...fields, mac: macOf(storeKey(home), DOMAIN, scope.runId, scope.key, canonical(fields)) };
  await mkdirPrivate(dirname(path));
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(`${JSON.stringify(sealed, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    for (let tries = 0; ; tries++) {
      try {
        await link(temp, path);
        return { won: true, answer: fields };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 8) throw error;
      }
      const there = await readAnswer(home, path, scope);
      if (there !== undefined) return { won: false, answer: there };
      // Not a sealed answer (removed by readAnswer) or gone meanwhile: try again.
    }
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * The answer at `path`, if there is one whose MAC checks; it stays where it is (see the module
 * note). A file that does not check is removed, so a forged answer never blocks a real one.
 */
export async function readAnswer(home: string, path: string, scope: AnswerScope): Promise<Answer | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') await rm(path, { force: true });
    return undefined;
  }
  const answer = checked(home, value, scope);
  if (answer === undefined) await rm(path, { force: true });
  return answer;
}

/** Removes the answer of a question that is about to be asked again (a resumed or retried step). */
export async function reopenAnswer(path: string): Promise<void> {
  await rm(path, { force: true });
}

function checked(home: string, value: unknown, scope: AnswerScope): Answer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { mac, ...rest } = value as Record<string, unknown>;
  if (typeof rest.decision !== 'string' || typeof rest.by !== 'string' || typeof rest.at !== 'string') return undefined;
  if (rest.note !== undefined && typeof rest.note !== 'string') return undefined;
  if (rest.asking !== undefined && typeof rest.asking !== 'string') return undefined;
  const fields = answerFields(rest as unknown as Answer);
  return macMatches(storeKey(home), mac, DOMAIN, scope.runId, scope.key, canonical(fields)) ? fields : undefined;
}

/** How a losing answer names the winner: `approve by web at 2026-…: lgtm`. */
export function describeAnswer(answer: Answer): string {
  return `${answer.decision} by ${answer.by} at ${answer.at}${answer.note ? `: ${answer.note}` : ''}`;
}

function answerFields(answer: Answer): Answer {
  return {
    decision: answer.decision,
    ...(answer.note === undefined ? {} : { note: answer.note }),
    by: answer.by,
    at: answer.at,
    ...(answer.asking === undefined ? {} : { asking: answer.asking }),
  };
}

/** The answer as the MAC sees it: its fields in one fixed order, whatever the file's key order. */
function canonical(answer: Answer): string {
  const fields = [answer.decision, answer.note ?? null, answer.by, answer.at];
  // Appended only when present, so an answer without it seals as it always did.
  return JSON.stringify(answer.asking === undefined ? fields : [...fields, answer.asking]);
}

/**
 * The loser of a race: another answer was there first. Usage class (exit 2; 409 from the
 * server), carrying the answer that won so the caller can say who answered and how.
 */
export class AnswerTakenError extends UsageError {
  readonly answer: Answer;

  constructor(code: string, question: string, answer: Answer) {
    super(code, `${question} was already answered: ${describeAnswer(answer)}`, {
      hint: 'one answer per question wins; yours was not recorded',
    });
    this.answer = answer;
  }
}
