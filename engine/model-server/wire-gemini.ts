import type { ErrorPlan, ReplyPlan } from './plan.js';
import { fragments } from './text.js';
import { callId, parsedArguments, type WireEvent, type WireFormat } from './wire.js';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function usageMetadata(plan: ReplyPlan) {
  // Gemini counts cached content inside promptTokenCount; the script counts it apart.
  const { output, cachedInput, reasoning } = plan.usage;
  const input = plan.usage.input + cachedInput;
  return {
    promptTokenCount: input,
    candidatesTokenCount: output,
    totalTokenCount: input + output,
    cachedContentTokenCount: cachedInput,
    thoughtsTokenCount: reasoning,
  };
}

function functionCall(plan: ReplyPlan, index: number) {
  const call = plan.tools[index]!;
  return {
    functionCall: { id: callId(plan, call, index, 'call_'), name: call.name, args: parsedArguments(call.input) },
  };
}

/**
 * Google Gemini `streamGenerateContent`: one `GenerateContentResponse` per chunk — thought parts,
 * text parts, then each function call whole (Gemini does not split call arguments), and a last
 * chunk with `finishReason` and `usageMetadata`.
 */
export const geminiWire: WireFormat = {
  stream(plan) {
    const events: WireEvent[] = [];
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, content = true) => {
      events.push({
        data: JSON.stringify({
          candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
          modelVersion: plan.model,
          responseId: `resp_${plan.base}`,
        }),
        ...(content ? { content: true } : {}),
      });
    };
    if (plan.reasoning !== undefined)
      for (const text of fragments(plan.reasoning, plan.chunk)) chunk([{ text, thought: true }]);
    if (plan.text !== undefined) for (const text of fragments(plan.text, plan.chunk)) chunk([{ text }]);
    plan.tools.forEach((_, i) => chunk([functionCall(plan, i)]));
    events.push({
      data: JSON.stringify({
        candidates: [
          {
            content: { parts: [{ text: '' }], role: 'model' },
            finishReason: plan.stop === 'max_tokens' ? 'MAX_TOKENS' : 'STOP',
            index: 0,
          },
        ],
        usageMetadata: usageMetadata(plan),
        modelVersion: plan.model,
        responseId: `resp_${plan.base}`,
      }),
    });
    return events;
  },

  json(plan) {
    const parts: unknown[] = [];
    if (plan.reasoning !== undefined) parts.push({ text: plan.reasoning, thought: true });
    if (plan.text !== undefined) parts.push({ text: plan.text });
    plan.tools.forEach((_, i) => parts.push(functionCall(plan, i)));
    return {
      candidates: [
        {
          content: { parts, role: 'model' },
          finishReason: plan.stop === 'max_tokens' ? 'MAX_TOKENS' : 'STOP',
          index: 0,
        },
      ],
      usageMetadata: usageMetadata(plan),
      modelVersion: plan.model,
      responseId: `resp_${plan.base}`,
    };
  },

  error(plan: ErrorPlan) {
    return {
      error: {
        code: plan.status,
        message: plan.message,
        status: plan.type ?? STATUS[plan.status] ?? (plan.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      },
    };
  },
};
