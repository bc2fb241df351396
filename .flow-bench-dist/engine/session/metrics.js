/**
 * Op-level metrics (seed 004 §8) through an in-process sink. No sink means no-op; a sink that
 * throws is swallowed, so observability can never break an op or block a release.
 */
/** The code_session_* family. */
export const METRICS = {
    ops: 'code_session_ops_total',
    started: 'code_session_started_total',
    readTurn: 'code_session_read_turn_total',
    answers: 'code_session_clarification_answers_total',
    postureChanges: 'code_session_posture_changes_total',
    released: 'code_session_released_total',
    rounds: 'code_session_rounds',
    durationMs: 'code_session_duration_ms',
};
export const noopMetrics = { increment() { }, observe() { } };
/** Wraps a sink so no call can throw. */
export function guardedMetrics(sink) {
    if (sink === undefined)
        return noopMetrics;
    return {
        increment(name, labels, value) {
            try {
                sink.increment(name, labels, value);
            }
            catch {
                // A broken sink must not break the op it observes.
            }
        },
        observe(name, value, labels) {
            try {
                sink.observe(name, value, labels);
            }
            catch {
                // Same as above.
            }
        },
    };
}
/** A sink that keeps counts in memory (tests, `neo session` diagnostics). */
export class MemoryMetrics {
    counters = new Map();
    observations = new Map();
    increment(name, labels = {}, value = 1) {
        const key = metricKey(name, labels);
        this.counters.set(key, (this.counters.get(key) ?? 0) + value);
    }
    observe(name, value, labels = {}) {
        const key = metricKey(name, labels);
        const values = this.observations.get(key) ?? [];
        values.push(value);
        this.observations.set(key, values);
    }
    /** The counter value for `name{labels}` (0 when never incremented). */
    count(name, labels = {}) {
        return this.counters.get(metricKey(name, labels)) ?? 0;
    }
}
/** `name{a="1",b="2"}` with labels sorted, Prometheus style. */
export function metricKey(name, labels = {}) {
    const keys = Object.keys(labels).sort();
    if (keys.length === 0)
        return name;
    return `${name}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
}
