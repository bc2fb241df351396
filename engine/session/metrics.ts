/**
 * Op-level metrics (seed 004 §8). The sink interface and the family names live in
 * engine/observability; this re-exports them under the names the session area always used.
 */
export {
  noopMetrics,
  guardedMetrics,
  MemoryMetrics,
  metricKey,
  type MetricsSink,
  type MetricLabels,
} from '../observability/index.js';
export { SESSION_METRICS as METRICS } from '../observability/index.js';
