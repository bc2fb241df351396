/**
 * OpenTelemetry export of the seed 004 §8 families, on when OTEL_EXPORTER_OTLP_ENDPOINT (or the
 * metrics-specific OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is set: the official SDK's meter
 * provider with a periodic OTLP/HTTP (JSON) exporter. As with Prometheus, a record of a family
 * the seed does not declare, or with labels it does not declare, is dropped. `shutdown()` sends
 * what is pending (a short run exports before it exits).
 */
import { createRequire } from 'node:module';
import type { Counter, Histogram } from '@opentelemetry/api';
import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import { FamilyTable } from './family-table.js';
import type { MetricLabels, MetricsSink } from './metrics-sink.js';

/** Where OTLP metrics go according to the standard variables; undefined when export is off. */
export function otlpMetricsUrl(env: NodeJS.ProcessEnv): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/metrics`;
}

/** How long a shutdown waits for the last export. */
const SHUTDOWN_MS = 3000;

export class OtlpSink implements MetricsSink {
  readonly url: string;
  readonly #provider: MeterProvider;
  readonly #table: FamilyTable<Counter, Histogram>;

  constructor(options: { url: string; serviceName?: string; exportIntervalMs?: number }) {
    this.url = options.url;
    // Required, not imported: the SDK loads only in a process that exports.
    const require = createRequire(import.meta.url);
    const sdk = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
    const { OTLPMetricExporter } =
      require('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
    const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
    this.#provider = new sdk.MeterProvider({
      resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'neo' }),
      readers: [
        new sdk.PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: options.url }),
          exportIntervalMillis: options.exportIntervalMs ?? 15_000,
        }),
      ],
    });
    const meter = this.#provider.getMeter('neo');
    this.#table = new FamilyTable({
      counter: (family) => meter.createCounter(family.name, { description: family.help }),
      histogram: (family) => meter.createHistogram(family.name, { description: family.help }),
    });
  }

  /** Records the families' rule dropped. */
  get dropped(): number {
    return this.#table.dropped;
  }

  increment(name: string, labels: MetricLabels = {}, value = 1): void {
    this.#table.counter(name, labels, value)?.add(value, labels);
  }

  observe(name: string, value: number, labels: MetricLabels = {}): void {
    this.#table.histogram(name, labels, value)?.record(value, labels);
  }

  /** Exports what is pending now. */
  async flush(): Promise<void> {
    await this.#provider.forceFlush().catch(() => undefined);
  }

  /** Exports what is pending and stops the exporter; never throws. */
  async shutdown(): Promise<void> {
    // Bounded: a collector that is down must not hold the process at exit.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#provider.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}
