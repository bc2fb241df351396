/**
 * The agent's transcript on disk: one JSON file replaced atomically after every turn, so a resumed
 * session reloads exactly what the model saw. Secrets never reach it: tool output is redacted
 * before it enters the transcript, and settings are not stored.
 */
import { join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
export const TRANSCRIPT_FILE = 'agent-transcript.json';
export function transcriptPath(dir) {
    return join(dir, TRANSCRIPT_FILE);
}
export async function saveTranscript(dir, transcript, now = new Date()) {
    await writeJsonAtomic(transcriptPath(dir), { version: 1, ...transcript, savedAt: now.toISOString() });
}
/** The saved transcript, or null when there is none (or it is unreadable). */
export async function loadTranscript(dir) {
    const value = await readJsonOrNull(transcriptPath(dir));
    if (value === null || value.version !== 1 || !Array.isArray(value.messages))
        return null;
    return value;
}
