/**
 * The track-record source list-backends reads: outcomes loaded from disk at most once per TTL
 * (about a minute) and reloaded as soon as this process records a new outcome. One instance per
 * NEO_HOME per process, so the recorder's invalidation reaches every reader.
 */
import { readOutcomes } from './outcomes-file.js';
import { trackRecordLines, trackStats } from './track-record.js';
export const TRACK_RECORD_TTL_MS = 60_000;
export class TrackRecords {
    home;
    #ttlMs;
    #now;
    #cache;
    /** Reads from disk so far (for tests of the cache). */
    loads = 0;
    constructor(home, options = {}) {
        this.home = home;
        this.#ttlMs = options.ttlMs ?? TRACK_RECORD_TTL_MS;
        this.#now = options.now ?? Date.now;
    }
    /** The outcome records, cached. */
    records() {
        const now = this.#now();
        if (this.#cache === undefined || now - this.#cache.at >= this.#ttlMs) {
            this.loads++;
            const records = readOutcomes(this.home);
            this.#cache = { at: now, records };
            records.catch(() => {
                if (this.#cache?.records === records)
                    this.#cache = undefined;
            });
        }
        return this.#cache.records;
    }
    /** A new outcome was recorded: the next read goes to disk. */
    invalidate() {
        this.#cache = undefined;
    }
    /** list-backends' trackRecord lines for one backend (undefined without history). */
    async lines(backendId) {
        return trackRecordLines(await this.records(), backendId, this.#now());
    }
    async stats() {
        return trackStats(await this.records());
    }
}
const shared = new Map();
/** The process-wide track records of a NEO_HOME. */
export function trackRecords(home) {
    let records = shared.get(home);
    if (records === undefined) {
        records = new TrackRecords(home);
        shared.set(home, records);
    }
    return records;
}
