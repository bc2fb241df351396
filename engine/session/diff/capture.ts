/**
 * Per-turn diff capture (seed 004 §6). Git first: at turn start HEAD and the untracked set; at
 * turn end `diff -M <startHead>` (which folds in commits made mid-turn) plus the files that became
 * untracked, rendered with `diff --no-index`. Outside git: the paths of file-edit tool calls.
 * Best effort: it never throws, because a capture problem must not break the read that asked.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TurnDiff, TurnDiffFile } from '../contract.js';
import { insideGitTree, runGit } from './git.js';
import { parseNameStatusZ, parseNumstatZ, parsePorcelainZ } from './parse.js';
import { MAX_DIFF_BYTES, capUnifiedDiff, summaryLine } from './summary.js';
import { fingerprints, keepContents } from './fingerprint.js';
import { editPathsOf } from './tool-events.js';

/** The hash of git's empty tree: the base of a repository with no commit yet. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

interface Baseline {
  head: string;
  untracked: Set<string>;
  /** Paths dirty (changed or untracked) when the turn began → their content fingerprint. */
  dirty: Map<string, string>;
  /** The content of the small ones, to count a later change against. */
  contents: Map<string, Buffer>;
}

export class TurnDiffCapture {
  readonly #editToolNames: readonly string[];
  readonly #root: string | undefined;
  #baseline: Baseline | undefined;
  #editedPaths = new Set<string>();

  private constructor(root: string | undefined, editToolNames: readonly string[]) {
    this.#root = root;
    this.#editToolNames = editToolNames;
  }

  /** Opens a capture for `cwd` and snapshots the first turn's baseline. Never throws. */
  static async open(cwd: string, editToolNames: readonly string[] = []): Promise<TurnDiffCapture> {
    if (!(await insideGitTree(cwd))) return new TurnDiffCapture(undefined, editToolNames);
    const top = await runGit(cwd, ['rev-parse', '--show-toplevel']);
    const root = top.ok ? top.stdout.replace(/\n$/, '') : undefined;
    const capture = new TurnDiffCapture(root === '' ? undefined : root, editToolNames);
    if (capture.#root !== undefined) capture.#baseline = await capture.#snapshot();
    return capture;
  }

  /** Whether git diffs are available (else the tool-event fallback applies). */
  get isGit(): boolean {
    return this.#root !== undefined && this.#baseline !== undefined;
  }

  /** Feeds a tool call (the fallback's only source). Cheap: no I/O. */
  noteToolUse(name: string, input: unknown): void {
    if (this.#editToolNames.length === 0) return;
    for (const path of editPathsOf(name, input, this.#editToolNames)) this.#editedPaths.add(path);
  }

  /** Finishes the current turn's diff and opens the next turn's baseline. Never throws. */
  async settle(): Promise<TurnDiff> {
    try {
      return this.isGit ? await this.#settleGit() : this.#settleToolEvents();
    } catch {
      return { source: 'none', files: [], summaryLine: summaryLine('none', []) };
    } finally {
      this.#editedPaths = new Set();
    }
  }

  #settleToolEvents(): TurnDiff {
    if (this.#editedPaths.size === 0) return { source: 'none', files: [], summaryLine: summaryLine('none', []) };
    const files: TurnDiffFile[] = [...this.#editedPaths].sort().map((path) => ({ path, status: 'M' }));
    return { source: 'tool-events', files, summaryLine: summaryLine('tool-events', files) };
  }

  async #settleGit(): Promise<TurnDiff> {
    const root = this.#root!;
    const start = this.#baseline!;
    const [numstat, nameStatus, status] = await Promise.all([
      runGit(root, ['diff', '-M', '--numstat', '-z', start.head, '--']),
      runGit(root, ['diff', '-M', '--name-status', '-z', start.head, '--']),
      runGit(root, ['status', '--porcelain', '-z', '-uall']),
    ]);
    if (!numstat.ok || !nameStatus.ok || !status.ok) return this.#settleToolEvents();

    const counts = new Map(parseNumstatZ(numstat.stdout).map((entry) => [entry.path, entry]));
    let files: TurnDiffFile[] = parseNameStatusZ(nameStatus.stdout).map((entry) => {
      const file: TurnDiffFile = { path: entry.path, status: entry.status };
      if (entry.oldPath !== undefined) file.oldPath = entry.oldPath;
      const count = counts.get(entry.path);
      if (count?.insertions !== undefined) file.insertions = count.insertions;
      if (count?.deletions !== undefined) file.deletions = count.deletions;
      return file;
    });
    const entries = parsePorcelainZ(status.stdout);
    const untracked = new Set(entries.filter((e) => e.code === '??').map((e) => e.path));
    const added = [...untracked].filter((path) => !start.untracked.has(path)).sort();
    for (const path of added) files.push({ path, status: 'A', ...(await countLines(join(root, path))) });

    // git diffs against HEAD, so a file already dirty when the turn began shows up again: keep
    // it only if its content changed during this turn, and count it against its content at turn
    // start (git's counts are HEAD-relative; without a kept copy they are left out, not overstated).
    const now = await fingerprints(root, [...start.dirty.keys()]);
    let dropped = false;
    const recount: TurnDiffFile[] = [];
    files = files.filter((file) => {
      const before = start.dirty.get(file.path);
      if (before === undefined) return true;
      if (before === now.get(file.path)) {
        dropped = true;
        return false;
      }
      delete file.insertions;
      delete file.deletions;
      recount.push(file);
      return true;
    });
    // Files untracked before the turn never appear in git's diff: report them when they changed.
    for (const path of start.untracked) {
      const before = start.dirty.get(path);
      const after = now.get(path);
      if (before === undefined || before === after || files.some((f) => f.path === path)) continue;
      const file: TurnDiffFile = { path, status: after === 'missing' ? 'D' : 'M' };
      files.push(file);
      if (file.status === 'M') recount.push(file);
    }
    for (const file of recount) {
      const base = start.contents.get(file.path);
      if (base !== undefined) Object.assign(file, await countAgainst(root, file.path, base));
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

    const trackedKept = files.filter(
      (f) => !untracked.has(f.path) && !(start.untracked.has(f.path) && f.status !== 'A'),
    );
    const unified = await this.#unifiedDiff(
      start.head,
      added,
      dropped ? trackedKept.flatMap((f) => (f.oldPath !== undefined ? [f.oldPath, f.path] : [f.path])) : undefined,
    );
    const head = await runGit(root, ['rev-parse', '--verify', '-q', 'HEAD']);
    const dirtyNow = entries.flatMap((e) => (e.origPath !== undefined ? [e.path, e.origPath] : [e.path]));
    this.#baseline = {
      head: head.ok ? head.stdout.trim() : EMPTY_TREE,
      untracked,
      dirty: await fingerprints(root, dirtyNow),
      contents: await keepContents(root, dirtyNow),
    };

    const diff: TurnDiff = { source: 'git', files, summaryLine: summaryLine('git', files) };
    if (unified.text !== '') diff.unifiedDiff = unified.text;
    if (unified.truncated) diff.truncated = true;
    return diff;
  }

  /** The tracked diff, then each new file against /dev/null, stopping once past the cap. */
  async #unifiedDiff(
    head: string,
    added: readonly string[],
    only: readonly string[] | undefined,
  ): Promise<{ text: string; truncated: boolean }> {
    const root = this.#root!;
    const limit = MAX_DIFF_BYTES + 1;
    let text = '';
    if (only === undefined || only.length > 0) {
      const pathspecs = only === undefined ? [] : only.map((path) => `:(literal)${path}`);
      text = (await runGit(root, ['diff', '-M', head, '--', ...pathspecs], { maxBuffer: limit })).stdout;
    }
    // Output cut at maxBuffer is longer than the cap, so capUnifiedDiff marks it truncated.
    for (const path of added) {
      if (Buffer.byteLength(text) > MAX_DIFF_BYTES) break;
      const run = await runGit(root, ['diff', '--no-index', '--', '/dev/null', path], {
        okExitCodes: [0, 1],
        maxBuffer: limit,
      });
      text += run.stdout;
    }
    return capUnifiedDiff(text);
  }

  async #snapshot(): Promise<Baseline | undefined> {
    const root = this.#root!;
    const [head, status] = await Promise.all([
      runGit(root, ['rev-parse', '--verify', '-q', 'HEAD']),
      runGit(root, ['status', '--porcelain', '-z', '-uall']),
    ]);
    if (!status.ok) return undefined;
    const entries = parsePorcelainZ(status.stdout);
    const untracked = new Set(entries.filter((e) => e.code === '??').map((e) => e.path));
    const paths = entries.flatMap((e) => (e.origPath !== undefined ? [e.path, e.origPath] : [e.path]));
    const [dirty, contents] = await Promise.all([fingerprints(root, paths), keepContents(root, paths)]);
    return { head: head.ok && head.stdout.trim() !== '' ? head.stdout.trim() : EMPTY_TREE, untracked, dirty, contents };
  }
}

/** Line counts of `path` now against `base`, its content at turn start (git's own counting). */
async function countAgainst(
  root: string,
  path: string,
  base: Buffer,
): Promise<{ insertions?: number; deletions?: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'neo-diff-'));
  try {
    const before = join(dir, 'before');
    await writeFile(before, base);
    const run = await runGit(root, ['diff', '--no-index', '--numstat', '--', before, path], { okExitCodes: [0, 1] });
    const [insertions, deletions] = run.stdout.split('\t');
    if (!run.ok || insertions === undefined || deletions === undefined || insertions === '-') return {};
    return { insertions: Number(insertions), deletions: Number(deletions) };
  } catch {
    return {};
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Line counts of a new file (absent for a binary file or one that cannot be read). */
async function countLines(path: string): Promise<{ insertions?: number; deletions?: number }> {
  try {
    const content = await readFile(path);
    if (content.subarray(0, 8000).includes(0)) return {};
    if (content.length === 0) return { insertions: 0, deletions: 0 };
    let lines = 0;
    for (const byte of content) if (byte === 0x0a) lines++;
    if (content[content.length - 1] !== 0x0a) lines++;
    return { insertions: lines, deletions: 0 };
  } catch {
    return {};
  }
}
