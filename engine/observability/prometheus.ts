import { createRequire } from 'node:module';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { MetricFamily } from './families.js';
import { FamilyTable } from './family-table.js';
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
  readonly #table: FamilyTable<Counter<string>, Histogram<string>>;

  constructor() {
    // Required, not imported: prom-client is CommonJS and loads only where metrics are served.
    const client = createRequire(import.meta.url)('prom-client') as typeof import('prom-client');
    this.registry = new client.Registry();
    const common = (family: MetricFamily) => ({
      name: family.name,
      help: family.help,
      labelNames: [...family.labels],
      registers: [this.registry],
    });
    this.#table = new FamilyTable({
      counter: (family) => new client.Counter(common(family)),
      histogram: (family) => new client.Histogram({ ...common(family), buckets: BUCKETS }),
    });
  }

  /** Records the families' rule dropped. */
  get dropped(): number {
    return this.#table.dropped;
  }

  increment(name: string, labels: MetricLabels = {}, value = 1): void {
    this.#table.counter(name, labels, value)?.inc(labels, value);
  }

  observe(name: string, value: number, labels: MetricLabels = {}): void {
    this.#table.histogram(name, labels, value)?.observe(labels, value);
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
