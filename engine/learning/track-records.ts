/**
 * The track-record source list-backends reads: outcomes loaded from disk at most once per TTL
 * (about a minute) and reloaded as soon as this process records a new outcome. One instance per
 * NEO_HOME per process, so the recorder's invalidation reaches every reader.
 */
import { readOutcomes } from './outcomes-file.js';
import type { HarnessOutcomeRecord } from './outcome.js';
import { trackRecordLines, trackStats, type TrackStats } from './track-record.js';

export const TRACK_RECORD_TTL_MS = 60_000;

export class TrackRecords {
  readonly home: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #cache: { at: number; records: Promise<HarnessOutcomeRecord[]> } | undefined;
  /** Reads from disk so far (for tests of the cache). */
  loads = 0;

  constructor(home: string, options: { ttlMs?: number; now?: () => number } = {}) {
    this.home = home;
    this.#ttlMs = options.ttlMs ?? TRACK_RECORD_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The outcome records, cached. */
  records(): Promise<HarnessOutcomeRecord[]> {
    const now = this.#now();
    if (this.#cache === undefined || now - this.#cache.at >= this.#ttlMs) {
      this.loads++;
      const records = readOutcomes(this.home);
      this.#cache = { at: now, records };
      records.catch(() => {
        if (this.#cache?.records === records) this.#cache = undefined;
      });
    }
    return this.#cache.records;
  }

  /** A new outcome was recorded: the next read goes to disk. */
  invalidate(): void {
    this.#cache = undefined;
  }

  /** list-backends' trackRecord lines for one backend (undefined without history). */
  async lines(backendId: string): Promise<string[] | undefined> {
    return trackRecordLines(await this.records(), backendId, this.#now());
  }

  async stats(): Promise<Map<string, TrackStats>> {
    return trackStats(await this.records());
  }
}

const shared = new Map<string, TrackRecords>();

/** The process-wide track records of a NEO_HOME. */
export function trackRecords(home: string): TrackRecords {
  let records = shared.get(home);
  if (records === undefined) {
    records = new TrackRecords(home);
    shared.set(home, records);
  }
  return records;
}
