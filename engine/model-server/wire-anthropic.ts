import type { ErrorPlan, ReplyPlan } from './plan.js';
import { fragments } from './text.js';
import { callId, jsonEvent, parsedArguments, type WireEvent, type WireFormat } from './wire.js';

const STOP = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' } as const;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** A fixed signature: clients send thinking blocks back with it; nothing verifies it here. */
const SIGNATURE = 'bmVvLXNjcmlwdGVkLW1vZGVs';

function usage(plan: ReplyPlan) {
  return {
    input_tokens: plan.usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: plan.usage.cachedInput,
    output_tokens: plan.usage.output,
  };
}

/**
 * Anthropic Messages: `message_start`, `ping`, then per block `content_block_start` /
 * `content_block_delta` (`thinking_delta` + `signature_delta`, `text_delta` or `input_json_delta`)
 * / `content_block_stop`, then `message_delta` with the stop reason and usage, then `message_stop`.
 */
export const anthropicWire: WireFormat = {
  stream(plan) {
    const events: WireEvent[] = [];
    const id = `msg_${plan.base}`;
    events.push(
      jsonEvent('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: plan.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage(plan), output_tokens: 0 },
        },
      }),
    );
    events.push(jsonEvent('ping', { type: 'ping' }));
    let index = 0;
    const block = (start: unknown, deltas: unknown[]) => {
      events.push(jsonEvent('content_block_start', { type: 'content_block_start', index, content_block: start }));
      for (const delta of deltas)
        events.push(jsonEvent('content_block_delta', { type: 'content_block_delta', index, delta }, true));
      events.push(jsonEvent('content_block_stop', { type: 'content_block_stop', index }));
      index++;
    };
    if (plan.reasoning !== undefined) {
      const deltas: unknown[] = fragments(plan.reasoning, plan.chunk).map((thinking) => ({
        type: 'thinking_delta',
        thinking,
      }));
      block({ type: 'thinking', thinking: '', signature: '' }, [
        ...deltas,
        { type: 'signature_delta', signature: SIGNATURE },
      ]);
    }
    if (plan.text !== undefined)
      block(
        { type: 'text', text: '' },
        fragments(plan.text, plan.chunk).map((text) => ({ type: 'text_delta', text })),
      );
    plan.tools.forEach((call, i) => {
      block(
        { type: 'tool_use', id: callId(plan, call, i, 'toolu_'), name: call.name, input: {} },
        fragments(call.input, plan.chunk).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      );
    });
    events.push(
      jsonEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: STOP[plan.stop], stop_sequence: null },
        usage: usage(plan),
      }),
    );
    events.push(jsonEvent('message_stop', { type: 'message_stop' }));
    return events;
  },

  json(plan) {
    const content: unknown[] = [];
    if (plan.reasoning !== undefined)
      content.push({ type: 'thinking', thinking: plan.reasoning, signature: SIGNATURE });
    if (plan.text !== undefined) content.push({ type: 'text', text: plan.text });
    plan.tools.forEach((call, i) =>
      content.push({
        type: 'tool_use',
        id: callId(plan, call, i, 'toolu_'),
        name: call.name,
        input: parsedArguments(call.input),
      }),
    );
    return {
      id: `msg_${plan.base}`,
      type: 'message',
      role: 'assistant',
      model: plan.model,
      content,
      stop_reason: STOP[plan.stop],
      stop_sequence: null,
      usage: usage(plan),
    };
  },

  error(plan: ErrorPlan) {
    return {
      type: 'error',
      error: {
        type: plan.type ?? ERROR_TYPES[plan.status] ?? (plan.status >= 500 ? 'api_error' : 'invalid_request_error'),
        message: plan.message,
      },
    };
  },
};
