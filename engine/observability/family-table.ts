/**
 * The seed's families as one backend's metric objects, and the one rule of what a sink records:
 * a record of a family the seed does not declare, with labels it does not declare, or with a
 * value that is no count (negative) or no number is dropped and counted, never a new series.
 * The Prometheus and OTLP sinks differ only in how they build a metric and hand it a value.
 */
import { fitsFamily, METRIC_FAMILIES, type MetricFamily } from './families.js';
import type { MetricLabels } from './metrics-sink.js';

interface Entry<M> {
  metric: M;
  labels: readonly string[];
}

export class FamilyTable<C, H> {
  readonly #counters = new Map<string, Entry<C>>();
  readonly #histograms = new Map<string, Entry<H>>();
  /** Records dropped by the rule. */
  dropped = 0;

  constructor(make: { counter(family: MetricFamily): C; histogram(family: MetricFamily): H }) {
    for (const family of METRIC_FAMILIES) {
      if (family.kind === 'counter')
        this.#counters.set(family.name, { metric: make.counter(family), labels: family.labels });
      else this.#histograms.set(family.name, { metric: make.histogram(family), labels: family.labels });
    }
  }

  /** The counter an increment of `value` goes to, or undefined when the rule drops it. */
  counter(name: string, labels: MetricLabels, value: number): C | undefined {
    return this.#admit(this.#counters.get(name), labels, value >= 0);
  }

  /** The histogram an observation of `value` goes to, or undefined when the rule drops it. */
  histogram(name: string, labels: MetricLabels, value: number): H | undefined {
    return this.#admit(this.#histograms.get(name), labels, Number.isFinite(value));
  }

  #admit<M>(entry: Entry<M> | undefined, labels: MetricLabels, valueOk: boolean): M | undefined {
    if (entry !== undefined && fitsFamily(labels, entry.labels) && valueOk) return entry.metric;
    this.dropped++;
    return undefined;
  }
}
