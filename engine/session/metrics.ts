/**
 * Op-level metrics (seed 004 §8) through an in-process sink. No sink means no-op; a sink that
 * throws is swallowed, so observability can never break an op or block a release.
 */

export type MetricLabels = Readonly<Record<string, string>>;

/** Where metrics go (a Prometheus registry, a test recorder, …). */
export interface MetricsSink {
  increment(name: string, labels?: MetricLabels, value?: number): void;
  observe(name: string, value: number, labels?: MetricLabels): void;
}

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
} as const;

export const noopMetrics: MetricsSink = { increment() {}, observe() {} };

/** Wraps a sink so no call can throw. */
export function guardedMetrics(sink: MetricsSink | undefined): MetricsSink {
  if (sink === undefined) return noopMetrics;
  return {
    increment(name, labels, value) {
      try {
        sink.increment(name, labels, value);
      } catch {
        // A broken sink must not break the op it observes.
      }
    },
    observe(name, value, labels) {
      try {
        sink.observe(name, value, labels);
      } catch {
        // Same as above.
      }
    },
  };
}

/** A sink that keeps counts in memory (tests, `neo session` diagnostics). */
export class MemoryMetrics implements MetricsSink {
  readonly counters = new Map<string, number>();
  readonly observations = new Map<string, number[]>();

  increment(name: string, labels: MetricLabels = {}, value = 1): void {
    const key = metricKey(name, labels);
    this.counters.set(key, (this.counters.get(key) ?? 0) + value);
  }

  observe(name: string, value: number, labels: MetricLabels = {}): void {
    const key = metricKey(name, labels);
    const values = this.observations.get(key) ?? [];
    values.push(value);
    this.observations.set(key, values);
  }

  /** The counter value for `name{labels}` (0 when never incremented). */
  count(name: string, labels: MetricLabels = {}): number {
    return this.counters.get(metricKey(name, labels)) ?? 0;
  }
}

/** `name{a="1",b="2"}` with labels sorted, Prometheus style. */
export function metricKey(name: string, labels: MetricLabels = {}): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return name;
  return `${name}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
}
