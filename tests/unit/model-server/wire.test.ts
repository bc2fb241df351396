import { describe, expect, it } from 'vitest';
import type { ErrorPlan, ReplyPlan } from '../../../engine/model-server/plan.js';
import type { RequestView } from '../../../engine/model-server/request-view.js';
import { stallIndex } from '../../../engine/model-server/respond.js';
import { anthropicWire } from '../../../engine/model-server/wire-anthropic.js';
import { chatWire } from '../../../engine/model-server/wire-chat.js';
import { geminiWire } from '../../../engine/model-server/wire-gemini.js';
import { responsesWire } from '../../../engine/model-server/wire-responses.js';
import { serializeEvent, type WireFormat } from '../../../engine/model-server/wire.js';
import * as golden from './golden.js';

const view = { includeUsage: true } as RequestView;
const sse = (wire: WireFormat, plan: ReplyPlan) => wire.stream(plan, view).map(serializeEvent).join('');

describe('streamed replies are byte-exact', () => {
  it.each([
    ['anthropic text', anthropicWire, golden.TEXT_PLAN, golden.ANTHROPIC_TEXT_SSE],
    ['anthropic tool call', anthropicWire, golden.TOOL_PLAN, golden.ANTHROPIC_TOOL_SSE],
    ['anthropic reasoning + raw-string arguments', anthropicWire, golden.CUSTOM_PLAN, golden.ANTHROPIC_CUSTOM_SSE],
    ['responses text', responsesWire, golden.TEXT_PLAN, golden.RESPONSES_TEXT_SSE],
    ['responses function call', responsesWire, golden.TOOL_PLAN, golden.RESPONSES_TOOL_SSE],
    ['responses reasoning + custom tool call', responsesWire, golden.CUSTOM_PLAN, golden.RESPONSES_CUSTOM_SSE],
    ['chat text', chatWire, golden.TEXT_PLAN, golden.CHAT_TEXT_SSE],
    ['chat tool call', chatWire, golden.TOOL_PLAN, golden.CHAT_TOOL_SSE],
    ['chat reasoning + custom tool call', chatWire, golden.CUSTOM_PLAN, golden.CHAT_CUSTOM_SSE],
    ['gemini text', geminiWire, golden.TEXT_PLAN, golden.GEMINI_TEXT_SSE],
    ['gemini function call', geminiWire, golden.TOOL_PLAN, golden.GEMINI_TOOL_SSE],
  ])('%s', (_, wire, plan, expected) => {
    expect(sse(wire, plan)).toBe(expected);
  });

  it('chat sends no usage chunk unless include_usage asked for it', () => {
    const events = chatWire.stream(golden.TEXT_PLAN, { ...view, includeUsage: false });
    expect(events.map((e) => e.data).filter((d) => d.includes('"usage"'))).toEqual([]);
    expect(events[events.length - 1]!.data).toBe('[DONE]');
  });
});

describe('non-streamed replies', () => {
  it('anthropic: a message with parsed tool input', () => {
    expect(anthropicWire.json(golden.TOOL_PLAN, view)).toEqual({
      id: 'msg_t_1',
      type: 'message',
      role: 'assistant',
      model: 'm-1',
      content: [
        { type: 'text', text: 'Writing.' },
        { type: 'tool_use', id: 'toolu_t_1_0', name: 'Write', input: { path: 'a.txt' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 2, output_tokens: 7 },
    });
  });
  it('chat: plain JSON with tool_calls and finish_reason', () => {
    expect(chatWire.json(golden.TOOL_PLAN, view)).toEqual({
      id: 'chatcmpl-t_1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'm-1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Writing.',
            tool_calls: [
              { id: 'call_t_1_0', type: 'function', function: { name: 'Write', arguments: '{"path":"a.txt"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 22,
        completion_tokens: 7,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });
  it('responses: the completed response object', () => {
    const body = responsesWire.json(golden.TEXT_PLAN, view) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: 'resp_t_1',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi there!' }] }],
    });
  });
  it('responses: a call in a namespace carries it, the name bare (Codex MCP tools)', () => {
    const plan = {
      ...golden.TOOL_PLAN,
      tools: [{ name: 'find_symbol', namespace: 'mcp__neo_memory', kind: 'function' as const, input: '{}' }],
    };
    const body = responsesWire.json(plan, view) as { output: unknown[] };
    expect(body.output.at(-1)).toMatchObject({
      type: 'function_call',
      name: 'find_symbol',
      namespace: 'mcp__neo_memory',
    });
    const done = responsesWire
      .stream(plan, view)
      .filter((e) => e.event === 'response.output_item.done')
      .at(-1)!;
    expect(JSON.parse(done.data).item).toMatchObject({ name: 'find_symbol', namespace: 'mcp__neo_memory' });
  });

  it('gemini: one candidate with text and a whole function call', () => {
    expect(geminiWire.json(golden.TOOL_PLAN, view)).toMatchObject({
      candidates: [
        {
          content: {
            parts: [{ text: 'Writing.' }, { functionCall: { name: 'Write', args: { path: 'a.txt' } } }],
            role: 'model',
          },
          finishReason: 'STOP',
        },
      ],
    });
  });
  it("max_tokens maps to each API's own stop reason", () => {
    const cut: ReplyPlan = { ...golden.TEXT_PLAN, stop: 'max_tokens' };
    expect((anthropicWire.json(cut, view) as { stop_reason: string }).stop_reason).toBe('max_tokens');
    expect((chatWire.json(cut, view) as { choices: [{ finish_reason: string }] }).choices[0].finish_reason).toBe(
      'length',
    );
    expect(responsesWire.json(cut, view)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(responsesWire.stream(cut, view).at(-1)!.event).toBe('response.incomplete');
  });
});

describe('error bodies', () => {
  const rateLimited: ErrorPlan = {
    kind: 'error',
    base: 't_1',
    model: 'm',
    created: 0,
    timing: { delayMs: 0, paceMs: 0 },
    status: 429,
    message: 'slow down',
  };
  it("use each API's error shape and type", () => {
    expect(anthropicWire.error(rateLimited)).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    expect(responsesWire.error(rateLimited)).toEqual({
      error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    });
    expect(chatWire.error({ ...rateLimited, status: 500 })).toEqual({
      error: { message: 'slow down', type: 'server_error', param: null, code: null },
    });
    expect(geminiWire.error(rateLimited)).toEqual({
      error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' },
    });
    expect(anthropicWire.error({ ...rateLimited, status: 529, type: 'custom_type' })).toEqual({
      type: 'error',
      error: { type: 'custom_type', message: 'slow down' },
    });
    expect(anthropicWire.error({ ...rateLimited, status: 529 })).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'slow down' },
    });
  });
});

describe('stallIndex', () => {
  const events = anthropicWire.stream(golden.TEXT_PLAN, view);
  it('true stops right after the first content fragment', () => {
    expect(stallIndex({ delayMs: 0, paceMs: 0, stall: 'first-content' }, events)).toBe(4);
    expect(events[3]!.data).toContain('"text":"Hi t"');
  });
  it('a count stops after that many events; no stall is undefined', () => {
    expect(stallIndex({ delayMs: 0, paceMs: 0, stall: 0 }, events)).toBe(0);
    expect(stallIndex({ delayMs: 0, paceMs: 0, stall: 99 }, events)).toBe(events.length);
    expect(stallIndex({ delayMs: 0, paceMs: 0 }, events)).toBeUndefined();
  });
});
