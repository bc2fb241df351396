/**
 * Where metrics go: one small interface every area records through (seed 004 §8). No sink is a
 * no-op, and a sink that throws is swallowed, so observability can never break an op or block a
 * release. Concrete sinks: the Prometheus registry of `neo serve` (prometheus.ts), the
 * forwarding sink of a process attached to it (engine/server), a memory sink in tests.
 */

export type MetricLabels = Readonly<Record<string, string>>;

export interface MetricsSink {
  increment(name: string, labels?: MetricLabels, value?: number): void;
  observe(name: string, value: number, labels?: MetricLabels): void;
}

export const noopMetrics: MetricsSink = { increment() {}, observe() {} };

/** Wraps a sink so no call can throw; undefined becomes the no-op sink. */
export function guardedMetrics(sink: MetricsSink | undefined): MetricsSink {
  if (sink === undefined || sink === noopMetrics) return noopMetrics;
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

/** Sends every record to each sink (each one guarded). */
export function teeMetrics(...sinks: Array<MetricsSink | undefined>): MetricsSink {
  const guarded = sinks.filter((s): s is MetricsSink => s !== undefined && s !== noopMetrics).map(guardedMetrics);
  if (guarded.length === 0) return noopMetrics;
  if (guarded.length === 1) return guarded[0]!;
  return {
    increment: (name, labels, value) => guarded.forEach((s) => s.increment(name, labels, value)),
    observe: (name, value, labels) => guarded.forEach((s) => s.observe(name, value, labels)),
  };
}

/** A sink that keeps counts in memory (tests, diagnostics). */
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
