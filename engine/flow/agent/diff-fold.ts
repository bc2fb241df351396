import type { TurnDiff, TurnDiffFile } from '../../session/index.js';

const MAX_UNIFIED = 64 * 1024;

/** A step's whole change, folded from its turns' diffs. */
export interface StepDiff {
  files: TurnDiffFile[];
  summary: string;
  unified: string;
  truncated: boolean;
  source: TurnDiff['source'];
}

/**
 * Folds per-turn diffs into the step's diff (outside git, where the step has no base): a path
 * keeps its latest status (a file added then deleted within the step is no change at all), line
 * counts add up, unified diffs are joined and capped at 64 KB. `place` turns a turn's path (as
 * its session saw it, relative to the session's folder) into the step's (relative to the
 * workspace root).
 */
export class DiffFold {
  readonly #place: (path: string) => string;
  readonly #files = new Map<string, TurnDiffFile>();
  #unified: string[] = [];
  #truncated = false;
  #source: TurnDiff['source'] = 'none';

  constructor(place: (path: string) => string = (path) => path) {
    this.#place = place;
  }

  add(diff: TurnDiff | undefined): void {
    if (diff === undefined) return;
    if (diff.source !== 'none') this.#source = diff.source;
    for (const turnFile of diff.files) {
      const file = { ...turnFile, path: this.#place(turnFile.path) };
      if (turnFile.oldPath !== undefined) file.oldPath = this.#place(turnFile.oldPath);
      const before = this.#files.get(file.path);
      if (before?.status === 'A' && file.status === 'D') {
        this.#files.delete(file.path);
        continue;
      }
      const status = before?.status === 'A' && file.status === 'M' ? 'A' : file.status;
      this.#files.set(file.path, {
        ...file,
        status,
        ...(before?.insertions !== undefined || file.insertions !== undefined
          ? { insertions: (before?.insertions ?? 0) + (file.insertions ?? 0) }
          : {}),
        ...(before?.deletions !== undefined || file.deletions !== undefined
          ? { deletions: (before?.deletions ?? 0) + (file.deletions ?? 0) }
          : {}),
      });
    }
    if (diff.unifiedDiff) this.#unified.push(diff.unifiedDiff);
    if (diff.truncated) this.#truncated = true;
  }

  get changed(): number {
    return this.#files.size;
  }

  result(): StepDiff {
    const files = [...this.#files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
    let unified = this.#unified.join('\n');
    let truncated = this.#truncated;
    if (unified.length > MAX_UNIFIED) {
      unified = `${unified.slice(0, MAX_UNIFIED)}\n… diff truncated at 64 KB`;
      truncated = true;
    }
    return { files, summary: summarize(files), unified, truncated, source: this.#source };
  }
}

/** `2 files changed, +10 -3` (line counts only when known). */
export function summarize(files: readonly TurnDiffFile[]): string {
  if (files.length === 0) return 'no files changed';
  const plus = files.reduce((n, f) => n + (f.insertions ?? 0), 0);
  const minus = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  const counted = files.some((f) => f.insertions !== undefined || f.deletions !== undefined);
  return `${files.length} file${files.length === 1 ? '' : 's'} changed${counted ? `, +${plus} -${minus}` : ''}`;
}
