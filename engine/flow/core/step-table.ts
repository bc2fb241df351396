import type { StepState } from './step-state.js';

/**
 * Entries a chunk holds. Replacing one step copies its chunk and the list of chunks: at 1,000
 * steps 32 + 32 slots instead of a 1,000-key record (which V8 holds as a dictionary and copies in
 * a few hundred microseconds, twice a step, all of it garbage the scavenger then promotes).
 */
const CHUNK = 32;

/**
 * A run's steps by id: a persistent table. It never changes; {@link with} returns a new table
 * that shares every chunk but the one it replaced, so an event costs O(chunk + steps / chunk)
 * instead of a copy of the whole record.
 *
 * The order of the ids is fixed when the table is made (the plan's, as the `run.started` event
 * lists it) and only {@link adding} and {@link without} change it, rebuilding the layout: equal
 * contents in the same order always have the same chunks, so tables compare deep-equal exactly
 * when their records do. What leaves the process is {@link toJSON}, the plain record in that
 * order (snapshot.json, the server's routes, `--json`): the chunks are never serialized, and the
 * redactor walks a value's JSON, never its fields.
 */
export class StepTable {
  /** The ids, in order. Shared by every table {@link with} derives. */
  readonly order: readonly string[];
  /**
   * The entries, CHUNK ids a chunk, in {@link order}. Public only so deep equality (a test's
   * `toEqual`) sees the contents; nothing outside this file reads or writes them.
   */
  readonly chunks: readonly (readonly StepState[])[];
  /** Each id's place in {@link order}; derived from it, so equality need not see it. */
  readonly #index: ReadonlyMap<string, number>;

  private constructor(
    order: readonly string[],
    index: ReadonlyMap<string, number>,
    chunks: readonly (readonly StepState[])[],
  ) {
    this.order = order;
    this.chunks = chunks;
    this.#index = index;
  }

  /** A table of these entries, in their order (a later duplicate id replaces the earlier entry in place). */
  static of(entries: Iterable<readonly [string, StepState]>): StepTable {
    const byId = new Map<string, StepState>();
    for (const [id, step] of entries) byId.set(id, step);
    const order = [...byId.keys()];
    const index = new Map(order.map((id, i) => [id, i] as const));
    const values = [...byId.values()];
    const chunks: StepState[][] = [];
    for (let i = 0; i < values.length; i += CHUNK) chunks.push(values.slice(i, i + CHUNK));
    return new StepTable(order, index, chunks);
  }

  /** The table of a plain record, in its key order (what {@link toJSON} gives back). */
  static from(record: Readonly<Record<string, StepState>>): StepTable {
    return StepTable.of(Object.entries(record));
  }

  /** {@link from} for a value that was a table's JSON: how the redactor rebuilds a table it changed. */
  static fromJSON(json: unknown): StepTable {
    return StepTable.from(json as Record<string, StepState>);
  }

  /** How many steps. */
  get size(): number {
    return this.order.length;
  }

  has(id: string): boolean {
    return this.#index.has(id);
  }

  get(id: string): StepState | undefined {
    const i = this.#index.get(id);
    return i === undefined ? undefined : this.chunks[(i / CHUNK) | 0]![i % CHUNK];
  }

  /**
   * The table with `id`'s entry replaced: one chunk and the chunk list copied, the rest shared.
   * `id` must be in the table: a new id changes the order, which only {@link adding} does.
   */
  with(id: string, step: StepState): StepTable {
    const i = this.#index.get(id);
    if (i === undefined) throw new RangeError(`StepTable.with: no step "${id}" (add it with adding())`);
    const c = (i / CHUNK) | 0;
    if (this.chunks[c]![i % CHUNK] === step) return this;
    const chunk = this.chunks[c]!.slice();
    chunk[i % CHUNK] = step;
    const chunks = this.chunks.slice();
    chunks[c] = chunk;
    return new StepTable(this.order, this.#index, chunks);
  }

  /** The table with these entries added at the end (an id already there is replaced in place). O(steps). */
  adding(entries: Iterable<readonly [string, StepState]>): StepTable {
    return StepTable.of([...this.entries(), ...entries]);
  }

  /** The table without these ids, the others in their order. O(steps). */
  without(ids: Iterable<string>): StepTable {
    const gone = new Set(ids);
    return StepTable.of(this.entries().filter(([id]) => !gone.has(id)));
  }

  /** The ids, in order. */
  ids(): readonly string[] {
    return this.order;
  }

  /** The entries, in order. */
  values(): StepState[] {
    return this.chunks.flat();
  }

  /** The `[id, step]` pairs, in order. */
  entries(): Array<[string, StepState]> {
    return this.order.map((id, i) => [id, this.chunks[(i / CHUNK) | 0]![i % CHUNK]!]);
  }

  /** The plain record, keys in order: what JSON.stringify writes and {@link from} reads back. */
  toJSON(): Record<string, StepState> {
    const record: Record<string, StepState> = {};
    this.order.forEach((id, i) => {
      record[id] = this.chunks[(i / CHUNK) | 0]![i % CHUNK]!;
    });
    return record;
  }
}
