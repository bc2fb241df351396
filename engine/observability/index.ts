/**
 * Observability: the metrics sink every area records through, the seed 004 §8 families, and the
 * Prometheus sink `neo serve` exposes on /metrics, the OTLP exporter, and the JSON-lines decision
 * logs. Imports only engine/util.
 */
export {
  noopMetrics,
  guardedMetrics,
  teeMetrics,
  MemoryMetrics,
  metricKey,
  type MetricsSink,
  type MetricLabels,
} from './metrics-sink.js';
export { SESSION_METRICS, SPECIALIST_METRICS, METRIC_FAMILIES, type MetricFamily } from './families.js';
export { PrometheusSink } from './prometheus.js';
export {
  JsonLinesLog,
  teeLogs,
  readLogLines,
  LOG_LEVELS,
  type DecisionLog,
  type LogLevel,
  type LogLine,
} from './decision-log.js';
export { OtlpSink, otlpMetricsUrl } from './otlp.js';
export { processMetrics, type ProcessMetrics } from './process-metrics.js';
export { fitsFamily } from './families.js';
