/**
 * How a turn of neo's own agent is reported: its usage in the normalized shape, a notice for an
 * end that is not the model's own, and a failure's code.
 */
import { ModelHttpError, type AgentUsage, type TurnResult } from '../../agent/index.js';
import { NeoError } from '../../util/errors.js';
import { PROVIDER_CODES, providerCode } from '../shared/provider-failure.js';
import type { AgentEvent, Usage } from '../types.js';

export function toUsage(usage: AgentUsage): Usage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
  };
}

/**
 * The code a failed turn reports: a model provider's failure under the provider code every
 * backend uses (a rejected key is TRANSPORT_UNAUTHENTICATED, which a flow never retries as
 * transient), else the agent's own code.
 */
export function failureCode(error: unknown): string {
  if (error instanceof ModelHttpError) return providerCode(error.status, '') ?? error.code;
  if (error instanceof NeoError && error.code === 'MODEL_TRANSPORT_ERROR') return PROVIDER_CODES.unreachable;
  return error instanceof NeoError ? error.code : 'AGENT_TURN_FAILED';
}

/** A transient notice for a turn that ended other than by the model's own end of turn. */
export function stopNotice(result: TurnResult): AgentEvent | undefined {
  if (result.stopReason === 'max_turns')
    return {
      type: 'error',
      code: 'AGENT_MAX_TURNS',
      transient: true,
      message: `the turn stopped after ${result.modelCalls} model calls (agent.maxTurns); send guidance to continue`,
    };
  if (result.stopReason === 'refusal')
    return {
      type: 'error',
      code: 'AGENT_REFUSAL',
      transient: true,
      message: 'the model refused; its refusal is the turn text',
    };
  return undefined;
}
