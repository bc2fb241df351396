import type { ErrorPlan, ReplyPlan } from './plan.js';
import type { RequestView } from './request-view.js';
import { fragments } from './text.js';
import { callId, openAiErrorType, type WireEvent, type WireFormat } from './wire.js';

const FINISH = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

function usage(plan: ReplyPlan) {
  // OpenAI counts cached tokens inside prompt_tokens; the script counts them apart.
  const { output, cachedInput, reasoning } = plan.usage;
  const input = plan.usage.input + cachedInput;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cachedInput },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/**
 * OpenAI Chat Completions. Streamed: `chat.completion.chunk`s — the role, then
 * `reasoning_content` and `content` deltas, then per tool call a first delta with id, type and
 * name followed by argument (or custom input) pieces, then the `finish_reason`, a usage chunk when
 * `stream_options.include_usage` asked for it, and `data: [DONE]`.
 */
export const chatWire: WireFormat = {
  stream(plan, view: RequestView) {
    const events: WireEvent[] = [];
    const head = {
      id: `chatcmpl-${plan.base}`,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, content = false) => {
      events.push({
        data: JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] }),
        ...(content ? { content: true } : {}),
      });
    };
    chunk({ role: 'assistant', content: '' });
    if (plan.reasoning !== undefined)
      for (const piece of fragments(plan.reasoning, plan.chunk)) chunk({ reasoning_content: piece }, null, true);
    if (plan.text !== undefined)
      for (const piece of fragments(plan.text, plan.chunk)) chunk({ content: piece }, null, true);
    plan.tools.forEach((call, index) => {
      const id = callId(plan, call, index, 'call_');
      if (call.kind === 'custom') {
        chunk({ tool_calls: [{ index, id, type: 'custom', custom: { name: call.name, input: '' } }] });
        for (const input of fragments(call.input, plan.chunk))
          chunk({ tool_calls: [{ index, custom: { input } }] }, null, true);
      } else {
        chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] });
        for (const args of fragments(call.input, plan.chunk))
          chunk({ tool_calls: [{ index, function: { arguments: args } }] }, null, true);
      }
    });
    chunk({}, FINISH[plan.stop]);
    if (view.includeUsage === true) events.push({ data: JSON.stringify({ ...head, choices: [], usage: usage(plan) }) });
    events.push({ data: '[DONE]' });
    return events;
  },

  json(plan) {
    const message: Record<string, unknown> = { role: 'assistant', content: plan.text ?? null };
    if (plan.reasoning !== undefined) message.reasoning_content = plan.reasoning;
    if (plan.tools.length > 0) {
      message.tool_calls = plan.tools.map((call, i) => {
        const id = callId(plan, call, i, 'call_');
        return call.kind === 'custom'
          ? { id, type: 'custom', custom: { name: call.name, input: call.input } }
          : { id, type: 'function', function: { name: call.name, arguments: call.input } };
      });
    }
    return {
      id: `chatcmpl-${plan.base}`,
      object: 'chat.completion',
      created: plan.created,
      model: plan.model,
      choices: [{ index: 0, message, finish_reason: FINISH[plan.stop] }],
      usage: usage(plan),
    };
  },

  error(plan: ErrorPlan) {
    const { type, code } = openAiErrorType(plan.status);
    return { error: { message: plan.message, type: plan.type ?? type, param: null, code } };
  },
};
