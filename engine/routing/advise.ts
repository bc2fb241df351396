/**
 * Routing advice for one task (seed 004 §10): the first of the task's tags that names a task
 * class of a routing definition picks the advised model class and effort for the backend's cost
 * profile (metered = a dollar play; subscription and free = a speed and rate-limit play). Only
 * what the backend can take is returned: no class for a backend that picks its own model, no
 * effort it does not list. Advice, not a rule: an explicit model or effort always wins. Pure.
 */
import type { Backend, Effort, ModelClass, Routing } from '../definitions/index.js';

/** What the routing data advises for a task on one backend. */
export interface RoutingAdvice {
  /** The routing definition and task class the advice came from. */
  source: string;
  taskClass: string;
  modelClass?: ModelClass;
  effort?: Effort;
  note?: string;
}

/** The cost profile a backend's advice is read for. */
export function adviceProfile(backend: Pick<Backend, 'costProfile'>): 'metered' | 'subscription' {
  return backend.costProfile === 'metered' ? 'metered' : 'subscription';
}

export function routingAdvice(
  routings: ReadonlyArray<{ id: string; data: Routing }>,
  backend: Pick<Backend, 'costProfile' | 'modelSelection' | 'effortSupport'>,
  taskTags: readonly string[],
): RoutingAdvice | undefined {
  for (const tag of taskTags) {
    for (const routing of routings) {
      const taskClass = routing.data.taskClasses[tag];
      if (taskClass === undefined) continue;
      const advice = taskClass[adviceProfile(backend)];
      const out: RoutingAdvice = { source: `routing ${routing.id}`, taskClass: tag };
      if (backend.modelSelection !== 'none') out.modelClass = advice.modelClass;
      if (backend.effortSupport?.levels.includes(advice.effort)) out.effort = advice.effort;
      if (advice.note !== undefined) out.note = advice.note;
      return out;
    }
  }
  return undefined;
}
