/** The one-line summary and the 64 KB cap of a turn diff. Pure. */
import type { TurnDiff, TurnDiffFile } from '../contract.js';

/** Cap of the unified diff a read-turn can carry (seed 004 §6). */
export const MAX_DIFF_BYTES = 64 * 1024;

const VERBS: Record<TurnDiffFile['status'], string> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed' };

/** "3 files changed (1 added, 2 modified), +12 -4" and friends. */
export function summaryLine(source: TurnDiff['source'], files: readonly TurnDiffFile[]): string {
  if (source === 'none') return 'no diff captured (not a git work tree and no file-edit tool calls)';
  if (files.length === 0) return 'no files changed';
  const counts = new Map<string, number>();
  for (const file of files) counts.set(VERBS[file.status], (counts.get(VERBS[file.status]) ?? 0) + 1);
  const parts = [...counts].map(([verb, n]) => `${n} ${verb}`).join(', ');
  const noun = files.length === 1 ? 'file' : 'files';
  if (source === 'tool-events') return `${files.length} ${noun} edited (${parts}; from tool calls, no line counts)`;
  const insertions = files.reduce((sum, f) => sum + (f.insertions ?? 0), 0);
  const deletions = files.reduce((sum, f) => sum + (f.deletions ?? 0), 0);
  return `${files.length} ${noun} changed (${parts}), +${insertions} -${deletions}`;
}

/**
 * Cuts a unified diff to `max` bytes at a line boundary and appends a marker line, so a reader
 * (and a driver model) can tell the diff is partial and how much is missing. `totalBytes` is the
 * whole diff's length when `text` is already a cut prefix of it.
 */
export function capUnifiedDiff(
  text: string,
  options: { max?: number; totalBytes?: number } = {},
): { text: string; truncated: boolean } {
  const max = options.max ?? MAX_DIFF_BYTES;
  const bytes = Math.max(Buffer.byteLength(text, 'utf8'), options.totalBytes ?? 0);
  if (bytes <= max) return { text, truncated: false };
  const marker = `\n… diff truncated at ${Math.round(max / 1024)} KB of ${Math.ceil(bytes / 1024)} KB\n`;
  const budget = max - Buffer.byteLength(marker, 'utf8');
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, budget)).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD; drop it, then back up to a line end.
  cut = cut.replace(/\uFFFD$/, '');
  const lineEnd = cut.lastIndexOf('\n');
  if (lineEnd > 0) cut = cut.slice(0, lineEnd);
  return { text: `${cut}${marker}`, truncated: true };
}
