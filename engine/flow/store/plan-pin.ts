import { contentHash } from '../../util/content-hash.js';
import type { CompiledPlan } from '../core/plan.js';

/** A stable hash of a compiled plan: what run.json's manifest and the event chain pin. */
export function planHash(plan: CompiledPlan): string {
  return contentHash(JSON.stringify(plan));
}
