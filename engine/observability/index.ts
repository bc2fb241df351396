/**
 * Observability: the metrics sink every area records through, the seed 004 §8 families, and the
 * Prometheus sink `neo serve` exposes on /metrics. A leaf: imports nothing of neo's.
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
