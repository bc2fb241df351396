import { contentHash } from '../../util/content-hash.js';
import type { CompiledPlan } from '../core/plan.js';
import type { PinnedDefinition } from './run-files.js';

/** A stable hash of a compiled plan: what run.json's manifest and the event chain pin. */
export function planHash(plan: CompiledPlan): string {
  return contentHash(JSON.stringify(plan));
}

/**
 * What a durable run pins at its first start (`DurableRun.pinPlan`): the compiled plan and the
 * digests of the project's neo.yaml layers it was compiled with. A takeover reads both from the
 * project's folder again, and a provider's `baseUrl`, key reference or headers are no part of the
 * plan: a confined step (in `inplace` isolation the folder is the checkout) that pointed the
 * project's provider elsewhere before its worker died would otherwise have the survivor send neo's
 * own agent's conversation and the user's key there. Without such a layer it is the plan's hash.
 */
export function durablePinHash(plan: CompiledPlan, pinned: readonly PinnedDefinition[]): string {
  const configs = pinned.filter((pin) => pin.kind === 'config').map((pin) => [pin.file, pin.digest]);
  return configs.length === 0 ? planHash(plan) : contentHash('durable-pin/1', planHash(plan), JSON.stringify(configs));
}
