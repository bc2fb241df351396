/**
 * Edit tracking for undo (seed 002 setup.go Undo, session edit log): every call of a write tool
 * (write_file, edit) is logged with the file's bytes before it ran (absent for a new file) and
 * after. `undo` reverts the last turn that wrote anything, newest write first, byte for byte —
 * and refuses, changing nothing, when any of those files is no longer what the agent left (a
 * person or a command edited it since). Commands run through exec are not tracked: only the file
 * tools' writes are.
 */
import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { AgentError } from '../errors.js';
import type { AgentTool } from '../tool.js';
import { confinedPath, displayPath } from './paths.js';
import { writeInside } from './pinned-io.js';

interface Entry {
  path: string;
  before: Buffer | null;
  after: Buffer | null;
}

export interface UndoReport {
  /** Files restored (workspace-relative), in the order they were reverted. */
  restored: string[];
  /** The turn that was undone (1 = the session's first). */
  turn: number;
}

export class EditJournal {
  readonly #cwd: string;
  #turn = 0;
  /** Writes by turn number; a turn with no write has no entry. */
  readonly #turns = new Map<number, Entry[]>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Called when a turn starts: later writes belong to it. */
  beginTurn(): void {
    this.#turn++;
  }

  clear(): void {
    this.#turns.clear();
  }

  /** Wraps a write tool so each call is logged with its before- and after-image. */
  track(tool: AgentTool): AgentTool {
    if (tool.effect !== 'write') return tool;
    return {
      ...tool,
      run: async (input, context) => {
        const raw = input.path;
        const path =
          typeof raw === 'string' && raw !== '' ? await confinedPath(this.#cwd, raw).catch(() => undefined) : undefined;
        const before = path === undefined ? null : await bytes(path);
        const result = await tool.run(input, context);
        if (path !== undefined) {
          const after = await bytes(path);
          if (!same(before, after)) this.#log({ path, before, after });
        }
        return result;
      },
    };
  }

  /** Reverts the last turn's writes; throws AGENT_UNDO_* when there is none or a file moved on. */
  async undo(): Promise<UndoReport> {
    const turn = Math.max(0, ...this.#turns.keys());
    const entries = this.#turns.get(turn);
    if (entries === undefined)
      throw new AgentError(
        'AGENT_UNDO_NOTHING',
        'nothing to undo: the agent has not written a file since the start (or the last reset/undo)',
      );
    // The state the agent left each file in is its last write's after-image.
    const last = new Map<string, Buffer | null>();
    for (const e of entries) last.set(e.path, e.after);
    const changed: string[] = [];
    for (const [path, after] of last) if (!same(await bytes(path), after)) changed.push(displayPath(this.#cwd, path));
    if (changed.length > 0)
      throw new AgentError(
        'AGENT_UNDO_CONFLICT',
        `cannot undo turn ${turn}: ${changed.join(', ')} changed since the agent wrote it`,
        {
          hint: 'nothing was reverted; restore those files by hand (git diff shows what changed)',
        },
      );
    const restored: string[] = [];
    for (const e of [...entries].reverse()) {
      if (e.before === null) await rm(e.path, { force: true });
      else await writeInside(this.#cwd, e.path, e.before);
      restored.push(displayPath(this.#cwd, e.path));
    }
    this.#turns.delete(turn);
    return { restored: [...new Set(restored)], turn };
  }

  #log(entry: Entry): void {
    const list = this.#turns.get(this.#turn) ?? [];
    list.push(entry);
    this.#turns.set(this.#turn, list);
  }
}

/**
 * A regular file's bytes, null for anything else: opened non-blocking, since the agent's own
 * `exec` can put a named pipe where it then edits, and a blocking open would wait for a writer.
 */
async function bytes(path: string): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function same(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}
