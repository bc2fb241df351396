import type { MetricsSink } from '../../observability/index.js';
import type { SessionService } from '../../session/index.js';

/**
 * What a process that runs sessions tells whoever watches it: the service once it exists (its
 * event seam, and a door for a person's guidance, answers and interrupts) and a metrics sink.
 */
export interface SessionHost {
  metrics?: MetricsSink;
  /** Called once, when the run creates its session service (on the first agent step). */
  serviceCreated?(service: SessionService): void;
}
