/**
 * The model and effort rules every start and guide passes (seed 004 §10): a class sentinel
 * resolved through the descriptor's modelClassMap, an effort checked against effortSupport, a
 * per-turn switch only where the backend allows one. A broken rule is a usage error (the session
 * ops answer it as a rejection). Pure.
 */
import type { Backend, Effort } from '../definitions/index.js';
import { UsageError } from '../util/errors.js';

/** The model class sentinels a request may name instead of a model id. */
export const MODEL_CLASSES = ['cheap', 'standard', 'frontier'] as const;

/**
 * A class sentinel resolved through the descriptor's modelClassMap (null or absent: let the
 * backend choose); a concrete id passes through unless the backend picks its own model.
 */
export function resolveAgentModel(backendId: string, descriptor: Backend, agentModel: string): string | undefined {
  if ((MODEL_CLASSES as readonly string[]).includes(agentModel)) {
    if (descriptor.modelSelection === 'none') return undefined;
    const mapped = descriptor.modelClassMap?.[agentModel as (typeof MODEL_CLASSES)[number]];
    return mapped ?? undefined;
  }
  if (descriptor.modelSelection === 'none') {
    throw new UsageError(
      'SESSION_MODEL_UNSUPPORTED',
      `backend \`${backendId}\` picks its own model; agentModel \`${agentModel}\` cannot be applied`,
      {
        hint: 'omit agentModel, or use a class sentinel (cheap, standard, frontier)',
      },
    );
  }
  return agentModel;
}

/** A configured default model: a class sentinel resolves through the map; nothing when the backend picks. */
export function defaultAgentModel(descriptor: Backend, model: string | undefined): string | undefined {
  if (model === undefined || descriptor.modelSelection === 'none') return undefined;
  if ((MODEL_CLASSES as readonly string[]).includes(model))
    return descriptor.modelClassMap?.[model as (typeof MODEL_CLASSES)[number]] ?? undefined;
  return model;
}

/** An explicit effort the backend does not accept is rejected (absent effortSupport accepts none). */
export function assertEffortSupported(backendId: string, descriptor: Backend, effort: Effort): void {
  const levels = descriptor.effortSupport?.levels ?? [];
  if (levels.includes(effort)) return;
  throw new UsageError('SESSION_EFFORT_UNSUPPORTED', `backend \`${backendId}\` does not accept effort \`${effort}\``, {
    hint: levels.length > 0 ? `it accepts: ${levels.join(', ')}` : 'it cannot set a reasoning effort; omit effort',
  });
}

/** guide's model/effort switch: only for `modelSelection: per-turn` backends. */
export function resolveGuideSwitch(
  backendId: string,
  descriptor: Backend,
  request: { agentModel?: string; effort?: Effort },
): { model?: string; effort?: Effort } | undefined {
  if (request.agentModel === undefined && request.effort === undefined) return undefined;
  if (descriptor.modelSelection !== 'per-turn') {
    throw new UsageError(
      'SESSION_MODEL_SWITCH_UNSUPPORTED',
      `backend \`${backendId}\` cannot switch model or effort between turns (modelSelection: ${descriptor.modelSelection})`,
      {
        hint: 'set agentModel/effort at start instead',
      },
    );
  }
  const switchTo: { model?: string; effort?: Effort } = {};
  if (request.agentModel !== undefined) {
    const model = resolveAgentModel(backendId, descriptor, request.agentModel);
    if (model !== undefined) switchTo.model = model;
  }
  if (request.effort !== undefined) {
    assertEffortSupported(backendId, descriptor, request.effort);
    switchTo.effort = request.effort;
  }
  return switchTo;
}
