/**
 * The agent's transcript on disk: one JSON file replaced atomically after every turn, so a resumed
 * session reloads exactly what the model saw. Secrets never reach it: tool output is redacted
 * before it enters the transcript, and settings are not stored.
 */
import { join } from 'node:path';
import type { Effort } from '../definitions/index.js';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import type { Message } from './messages.js';
import type { AgentUsage } from './usage.js';
import type { ChecklistItem } from './tools/workflow.js';

export const TRANSCRIPT_FILE = 'agent-transcript.json';

export interface SavedTranscript {
  version: 1;
  provider: string;
  model: string;
  effort?: Effort;
  messages: Message[];
  usage: AgentUsage;
  /** The workflow tool's checklist, when the model kept one. */
  checklist?: ChecklistItem[];
  savedAt: string;
}

export function transcriptPath(dir: string): string {
  return join(dir, TRANSCRIPT_FILE);
}

export async function saveTranscript(
  dir: string,
  transcript: Omit<SavedTranscript, 'version' | 'savedAt'>,
  now = new Date(),
): Promise<void> {
  await writeJsonAtomic(transcriptPath(dir), {
    version: 1,
    ...transcript,
    savedAt: now.toISOString(),
  } satisfies SavedTranscript);
}

/** The saved transcript, or null when there is none (or it is unreadable). */
export async function loadTranscript(dir: string): Promise<SavedTranscript | null> {
  const value = await readJsonOrNull<SavedTranscript>(transcriptPath(dir));
  if (value === null || value.version !== 1 || !Array.isArray(value.messages)) return null;
  return value;
}
