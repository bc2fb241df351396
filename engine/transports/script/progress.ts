import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../../util/atomic-file.js';

/** Where a script session stands: what resume needs to continue at the right turn. */
export interface ScriptProgress {
  version: 1;
  externalSessionId: string;
  /** sha256 of the script text; resume refuses a script that changed. */
  scriptHash: string;
  scriptFile: string;
  /** Index in `turns` of the first turn not yet played. */
  nextTurn: number;
  /** Turns played so far (the last turn_complete's numTurns). */
  turnsPlayed: number;
  updatedAt: string;
}

/** The file the transport keeps in its session folder (NEO_HOME/code-sessions/<id>/). */
export const PROGRESS_FILE = 'script-progress.json';

/** Sessions of this process, for resume when no session folder was given (the newest few). */
const remembered = new Map<string, ScriptProgress>();
const REMEMBER_MAX = 1_000;

/**
 * Records progress: in memory, and atomically in the session folder when there is one. A write
 * that fails is not the turn's problem: the in-memory copy still serves a resume in this process.
 */
export async function saveProgress(sessionDir: string | undefined, progress: ScriptProgress): Promise<void> {
  remembered.delete(progress.externalSessionId);
  remembered.set(progress.externalSessionId, progress);
  if (remembered.size > REMEMBER_MAX) remembered.delete(remembered.keys().next().value!);
  if (sessionDir === undefined) return;
  await writeJsonAtomic(join(sessionDir, PROGRESS_FILE), progress).catch(() => undefined);
}

/**
 * Finds the progress of a script session to resume: in this session's folder (adoption reuses
 * it), then in the sibling session folders (a resume opens a new session record), then in the
 * memory of this process. The newest record wins.
 */
export async function findProgress(
  externalSessionId: string,
  sessionDir: string | undefined,
): Promise<ScriptProgress | undefined> {
  const found: ScriptProgress[] = [];
  if (sessionDir !== undefined) {
    const own = await readProgress(join(sessionDir, PROGRESS_FILE), externalSessionId);
    if (own !== undefined) return own;
    const root = dirname(sessionDir);
    const siblings = await readdir(root).catch(() => [] as string[]);
    for (const name of siblings) {
      const progress = await readProgress(join(root, name, PROGRESS_FILE), externalSessionId);
      if (progress !== undefined) found.push(progress);
    }
  }
  const memory = remembered.get(externalSessionId);
  if (memory !== undefined) found.push(memory);
  return found.sort((a, b) =>
    a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : b.turnsPlayed - a.turnsPlayed,
  )[0];
}

async function readProgress(path: string, externalSessionId: string): Promise<ScriptProgress | undefined> {
  const value = await readJsonOrNull<ScriptProgress>(path);
  if (value === null || value.version !== 1 || value.externalSessionId !== externalSessionId) return undefined;
  if (!Number.isInteger(value.nextTurn) || !Number.isInteger(value.turnsPlayed)) return undefined;
  return value;
}
