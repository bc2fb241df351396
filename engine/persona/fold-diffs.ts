/**
 * A dispatch's whole change from its turns' diffs, for a flow step's outputs: a path keeps its
 * latest status (added then deleted is no change), line counts add up, unified diffs are joined
 * and capped at 64 KB. The same shape the flow's own driver reports. Pure.
 */
import type { TurnDiff, TurnDiffFile } from '../session/index.js';

const MAX_UNIFIED = 64 * 1024;

export interface FoldedDiff {
  files: TurnDiffFile[];
  summary: string;
  unified: string;
  truncated: boolean;
  source: TurnDiff['source'];
}

export function foldDiffs(diffs: readonly TurnDiff[]): FoldedDiff {
  const files = new Map<string, TurnDiffFile>();
  const unified: string[] = [];
  let truncated = false;
  let source: TurnDiff['source'] = 'none';
  for (const diff of diffs) {
    if (diff.source !== 'none') source = diff.source;
    for (const file of diff.files) {
      const before = files.get(file.path);
      if (before?.status === 'A' && file.status === 'D') {
        files.delete(file.path);
        continue;
      }
      const status = before?.status === 'A' && file.status === 'M' ? 'A' : file.status;
      const add = (a: number | undefined, b: number | undefined) =>
        a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
      const insertions = add(before?.insertions, file.insertions);
      const deletions = add(before?.deletions, file.deletions);
      files.set(file.path, {
        ...file,
        status,
        ...(insertions === undefined ? {} : { insertions }),
        ...(deletions === undefined ? {} : { deletions }),
      });
    }
    if (diff.unifiedDiff) unified.push(diff.unifiedDiff);
    if (diff.truncated) truncated = true;
  }
  let text = unified.join('\n');
  if (text.length > MAX_UNIFIED) {
    text = `${text.slice(0, MAX_UNIFIED)}\n… diff truncated at 64 KB`;
    truncated = true;
  }
  const list = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  return { files: list, summary: summarize(list), unified: text, truncated, source };
}

function summarize(files: readonly TurnDiffFile[]): string {
  if (files.length === 0) return 'no files changed';
  const counted = files.some((f) => f.insertions !== undefined || f.deletions !== undefined);
  const plus = files.reduce((n, f) => n + (f.insertions ?? 0), 0);
  const minus = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  return `${files.length} file${files.length === 1 ? '' : 's'} changed${counted ? `, +${plus} -${minus}` : ''}`;
}
