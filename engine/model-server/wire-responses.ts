import type { ErrorPlan, ReplyPlan } from './plan.js';
import { fragments } from './text.js';
import { callId, openAiErrorType, type WireEvent, type WireFormat } from './wire.js';

function usage(plan: ReplyPlan) {
  // OpenAI counts cached tokens inside input_tokens; the script counts them apart.
  const { output, cachedInput, reasoning } = plan.usage;
  const input = plan.usage.input + cachedInput;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cachedInput },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

function response(plan: ReplyPlan, status: string, output: unknown[], withUsage: boolean) {
  const incomplete = status === 'incomplete' ? { reason: 'max_output_tokens' } : null;
  return {
    id: `resp_${plan.base}`,
    object: 'response',
    created_at: plan.created,
    status,
    error: null,
    incomplete_details: incomplete,
    model: plan.model,
    output,
    usage: withUsage ? usage(plan) : null,
  };
}

/** The finished output items, in the order they stream. */
function items(plan: ReplyPlan): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (plan.reasoning !== undefined)
    out.push({ id: `rs_${plan.base}`, type: 'reasoning', summary: [{ type: 'summary_text', text: plan.reasoning }] });
  if (plan.text !== undefined)
    out.push({
      id: `msg_${plan.base}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: plan.text, annotations: [] }],
    });
  plan.tools.forEach((call, i) => {
    const call_id = callId(plan, call, i, 'call_');
    if (call.kind === 'custom')
      out.push({
        id: `ctc_${plan.base}_${i}`,
        type: 'custom_tool_call',
        status: 'completed',
        call_id,
        name: call.name,
        input: call.input,
      });
    else
      out.push({
        id: `fc_${plan.base}_${i}`,
        type: 'function_call',
        status: 'completed',
        arguments: call.input,
        call_id,
        name: call.name,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
      });
  });
  return out;
}

/**
 * OpenAI Responses: `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added`, its own events (reasoning summary parts, `content_part` +
 * `output_text.delta`, `function_call_arguments.delta`, `custom_tool_call_input.delta`),
 * `response.output_item.done`, then `response.completed` (or `response.incomplete`) with usage.
 * Every event carries a running `sequence_number`.
 */
export const responsesWire: WireFormat = {
  stream(plan) {
    const events: WireEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown>, content = false) => {
      events.push({
        event: type,
        data: JSON.stringify({ type, sequence_number: events.length, ...fields }),
        ...(content ? { content: true } : {}),
      });
    };
    emit('response.created', { response: response(plan, 'in_progress', [], false) });
    emit('response.in_progress', { response: response(plan, 'in_progress', [], false) });
    const done = items(plan);
    done.forEach((item, output_index) => {
      const item_id = item.id;
      switch (item.type) {
        case 'reasoning': {
          const text = plan.reasoning ?? '';
          emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
          emit('response.reasoning_summary_part.added', {
            item_id,
            output_index,
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          });
          for (const delta of fragments(text, plan.chunk))
            emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta }, true);
          emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text });
          emit('response.reasoning_summary_part.done', {
            item_id,
            output_index,
            summary_index: 0,
            part: { type: 'summary_text', text },
          });
          break;
        }
        case 'message': {
          const text = plan.text ?? '';
          emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
          emit('response.content_part.added', {
            item_id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
          for (const delta of fragments(text, plan.chunk))
            emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta }, true);
          emit('response.output_text.done', { item_id, output_index, content_index: 0, text });
          emit('response.content_part.done', {
            item_id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', text, annotations: [] },
          });
          break;
        }
        case 'custom_tool_call': {
          const input = String(item.input);
          emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } });
          for (const delta of fragments(input, plan.chunk))
            emit('response.custom_tool_call_input.delta', { item_id, output_index, delta }, true);
          emit('response.custom_tool_call_input.done', { item_id, output_index, input });
          break;
        }
        default: {
          const args = String(item.arguments);
          emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
          for (const delta of fragments(args, plan.chunk))
            emit('response.function_call_arguments.delta', { item_id, output_index, delta }, true);
          emit('response.function_call_arguments.done', { item_id, output_index, arguments: args });
        }
      }
      emit('response.output_item.done', { output_index, item });
    });
    const status = plan.stop === 'max_tokens' ? 'incomplete' : 'completed';
    emit(`response.${status}`, { response: response(plan, status, done, true) });
    return events;
  },

  json(plan) {
    return response(plan, plan.stop === 'max_tokens' ? 'incomplete' : 'completed', items(plan), true);
  },

  error(plan: ErrorPlan) {
    const { type, code } = openAiErrorType(plan.status);
    return { error: { message: plan.message, type: plan.type ?? type, param: null, code } };
  },
};
