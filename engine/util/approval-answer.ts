/**
 * A person's answer left in a file for a process that waits on it (a flow's approval, a driving
 * persona's question): `NEO_HOME/approvals/<runId>/<key>.json`, written by `neo flow approve`
 * and the server. The file carries a MAC (util/store-key.ts) over the run, the key and the
 * answer, so an answer that anything else wrote — a step that reached NEO_HOME, a copy from
 * another question — is never acted on: it is removed and the wait goes on.
 */
import { readFile, rm } from 'node:fs/promises';
import { writeJsonAtomic } from './atomic-file.js';
import { macMatches, macOf, storeKey } from './store-key.js';

const DOMAIN = 'neo.approval-answer.v1';

/** What a person answered. */
export interface Answer {
  decision: string;
  note?: string;
  /** Who answered: `tty`, `cli (user)`, `web (…)`. */
  by: string;
  at: string;
}

/** What the MAC covers besides the answer: which question of which run it answers. */
export interface AnswerScope {
  runId: string;
  key: string;
}

/** Writes an answer, sealed with its MAC. */
export async function writeAnswer(home: string, path: string, scope: AnswerScope, answer: Answer): Promise<void> {
  const fields = answerFields(answer);
  await writeJsonAtomic(path, {
    ...fields,
    mac: macOf(storeKey(home), DOMAIN, scope.runId, scope.key, canonical(fields)),
  });
}

/** Reads and removes the answer at `path`; undefined when there is none or its MAC does not check. */
export async function takeAnswer(home: string, path: string, scope: AnswerScope): Promise<Answer | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
  await rm(path, { force: true });
  if (typeof value !== 'object' || value === null) return undefined;
  const { mac, ...rest } = value as Record<string, unknown>;
  if (typeof rest.decision !== 'string' || typeof rest.by !== 'string' || typeof rest.at !== 'string') return undefined;
  if (rest.note !== undefined && typeof rest.note !== 'string') return undefined;
  const fields = answerFields(rest as unknown as Answer);
  return macMatches(storeKey(home), mac, DOMAIN, scope.runId, scope.key, canonical(fields)) ? fields : undefined;
}

function answerFields(answer: Answer): Answer {
  return {
    decision: answer.decision,
    ...(answer.note === undefined ? {} : { note: answer.note }),
    by: answer.by,
    at: answer.at,
  };
}

/** The answer as the MAC sees it: its fields in one fixed order, whatever the file's key order. */
function canonical(answer: Answer): string {
  return JSON.stringify([answer.decision, answer.note ?? null, answer.by, answer.at]);
}
