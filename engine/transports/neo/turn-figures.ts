/** How a turn of neo's own agent is reported: its usage in the normalized shape, and a failure's code. */
import { ModelHttpError, type AgentUsage } from '../../agent/index.js';
import { NeoError } from '../../util/errors.js';
import { PROVIDER_CODES, providerCode } from '../shared/provider-failure.js';
import type { Usage } from '../types.js';

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
