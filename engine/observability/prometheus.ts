import { createRequire } from 'node:module';
import type { Counter, Histogram, Registry } from 'prom-client';
import { fitsFamily, METRIC_FAMILIES } from './families.js';
import type { MetricLabels, MetricsSink } from './metrics-sink.js';

/** Buckets that fit both round counts and millisecond durations (1 … ~1 h). */
const BUCKETS = [1, 2, 4, 8, 16, 32, 100, 1_000, 10_000, 60_000, 300_000, 1_800_000, 3_600_000];

/**
 * A sink that feeds a prom-client registry holding exactly the seed's families. A record for an
 * unknown family, or with a label the family does not declare, is dropped (counted in
 * `dropped`), never turned into a new series: a metric name is part of a dashboard contract.
 */
export class PrometheusSink implements MetricsSink {
  readonly registry: Registry;
  readonly #counters = new Map<string, { metric: Counter<string>; labels: readonly string[] }>();
  readonly #histograms = new Map<string, { metric: Histogram<string>; labels: readonly string[] }>();
  dropped = 0;

  constructor() {
    // Required, not imported: prom-client is CommonJS and loads only where metrics are served.
    const client = createRequire(import.meta.url)('prom-client') as typeof import('prom-client');
    this.registry = new client.Registry();
    for (const family of METRIC_FAMILIES) {
      const common = {
        name: family.name,
        help: family.help,
        labelNames: [...family.labels],
        registers: [this.registry],
      };
      if (family.kind === 'counter')
        this.#counters.set(family.name, { metric: new client.Counter(common), labels: family.labels });
      else
        this.#histograms.set(family.name, {
          metric: new client.Histogram({ ...common, buckets: BUCKETS }),
          labels: family.labels,
        });
    }
  }

  increment(name: string, labels: MetricLabels = {}, value = 1): void {
    const counter = this.#counters.get(name);
    if (counter === undefined || !fitsFamily(labels, counter.labels) || !(value >= 0)) {
      this.dropped++;
      return;
    }
    counter.metric.inc(labels, value);
  }

  observe(name: string, value: number, labels: MetricLabels = {}): void {
    const histogram = this.#histograms.get(name);
    if (histogram === undefined || !fitsFamily(labels, histogram.labels) || !Number.isFinite(value)) {
      this.dropped++;
      return;
    }
    histogram.metric.observe(labels, value);
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
