import { describe, expect, it } from 'vitest';
import { Agent, AgentError, type AgentLoopEvent, type AgentTool } from '../../../engine/agent/index.js';
import { echoTool } from '../../fixtures/agent/echo-tool.js';
import { FakeProvider, text, toolCall, usage } from '../../fixtures/agent/fake-provider.js';

function agentWith(
  provider: FakeProvider,
  extra: Partial<ConstructorParameters<typeof Agent>[0]> = {},
): { agent: Agent; events: AgentLoopEvent[] } {
  const events: AgentLoopEvent[] = [];
  const agent = new Agent({
    provider,
    model: 'm1',
    system: 'sys',
    tools: [echoTool()],
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { agent, events };
}

const kinds = (events: AgentLoopEvent[]): string[] =>
  events.filter((e) => e.type !== 'text_delta' && e.type !== 'reasoning_delta').map((e) => e.type);

describe('agent loop', () => {
  it('ends a plain text turn with the text, one model call and its usage', async () => {
    const provider = new FakeProvider([text('hello', { inputTokens: 10, outputTokens: 2 })]);
    const { agent, events } = agentWith(provider);
    const result = await agent.send('hi');
    expect(result).toEqual({ text: 'hello', stopReason: 'end_turn', modelCalls: 1, usage: usage(10, 2) });
    expect(kinds(events)).toEqual(['usage', 'text', 'turn_end']);
    expect(events.filter((e) => e.type === 'text_delta')).toEqual([{ type: 'text_delta', text: 'hello' }]);
    expect(agent.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
    expect(provider.requests[0]).toMatchObject({ model: 'm1', system: 'sys', maxOutputTokens: 8192 });
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('sends one tool-spec array for a tool list, call after call and agent after agent', async () => {
    /** Keeps each request's tools array itself (FakeProvider keeps clones). */
    class ToolsSeen extends FakeProvider {
      readonly seen: unknown[] = [];
      override complete(...args: Parameters<FakeProvider['complete']>): ReturnType<FakeProvider['complete']> {
        this.seen.push(args[0].tools);
        return super.complete(...args);
      }
    }
    const tools = [echoTool(), { ...echoTool(), spec: { ...echoTool().spec, description: 'the last of a name wins' } }];
    const provider = new ToolsSeen([
      toolCall('echo', { value: 'a' }, 't1'),
      text('done'),
      text('again'),
      text('other list'),
    ]);
    await new Agent({ provider, model: 'm1', system: 'sys', tools }).send('go');
    await new Agent({ provider, model: 'm1', system: 'sys', tools }).send('go');
    await new Agent({ provider, model: 'm1', system: 'sys', tools: [...tools] }).send('go');
    const [first, second, third, other] = provider.seen;
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first).toEqual([{ ...echoTool().spec, description: 'the last of a name wins' }]);
    // Another list (even with the same tools) is worked out anew.
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
  });

  it('runs tools and continues until the assistant ends the turn', async () => {
    const provider = new FakeProvider([toolCall('echo', { value: 'a' }, 't1', 'checking'), text('done')]);
    const { agent, events } = agentWith(provider);
    const result = await agent.send('go');
    expect(result.text).toBe('done');
    expect(result.modelCalls).toBe(2);
    expect(kinds(events)).toEqual(['usage', 'text', 'tool_use', 'tool_result', 'usage', 'text', 'turn_end']);
    expect(events.find((e) => e.type === 'tool_result')).toEqual({
      type: 'tool_result',
      id: 't1',
      name: 'echo',
      output: 'echo:a',
      isError: false,
    });
    expect(provider.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', name: 'echo', content: 'echo:a', isError: false }],
    });
  });

  it('answers an unknown tool and malformed arguments with tool errors the model can correct', async () => {
    const provider = new FakeProvider([
      {
        content: [
          { type: 'tool_use', id: 'a', name: 'nope', input: {} },
          { type: 'tool_use', id: 'b', name: 'echo', input: '{"value": ' },
        ],
      },
      text('ok'),
    ]);
    const { agent } = agentWith(provider);
    await agent.send('go');
    expect(provider.requests[1]!.messages.at(-1)!.content).toEqual([
      {
        type: 'tool_result',
        toolUseId: 'a',
        name: 'nope',
        content: 'unknown tool "nope"; available: echo',
        isError: true,
      },
      {
        type: 'tool_result',
        toolUseId: 'b',
        name: 'echo',
        content: 'the arguments for echo must be a JSON object; got invalid JSON: {"value": ',
        isError: true,
      },
    ]);
  });

  it('caps oversized tool output before it enters the transcript', async () => {
    const big = `${'a'.repeat(3000)}${'z'.repeat(3000)}`;
    const provider = new FakeProvider([toolCall('echo', {}, 't1'), text('ok')]);
    const { agent } = agentWith(provider, { tools: [echoTool('echo', 'read', () => big)], toolOutputMaxBytes: 1200 });
    await agent.send('go');
    const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
    expect(result.type === 'tool_result' && result.content).toBe(
      `${'a'.repeat(800)}\n[… 4800 bytes omitted …]\n${'z'.repeat(400)}`,
    );
  });

  it('stops at maxTurns model calls with stopReason max_turns', async () => {
    const provider = new FakeProvider([
      toolCall('echo', {}, 't1'),
      toolCall('echo', {}, 't2'),
      toolCall('echo', {}, 't3'),
    ]);
    const { agent } = agentWith(provider, { maxTurns: 2 });
    const result = await agent.send('loop');
    expect(result.stopReason).toBe('max_turns');
    expect(result.modelCalls).toBe(2);
    expect(provider.remaining).toBe(1);
  });

  it('ends the turn on a refusal with the refusal text', async () => {
    const provider = new FakeProvider([{ ...text('I cannot help with that.'), stopReason: 'refusal' }]);
    const { agent } = agentWith(provider);
    expect(await agent.send('bad')).toMatchObject({
      text: 'I cannot help with that.',
      stopReason: 'refusal',
      modelCalls: 1,
    });
  });

  it('continues after a refusal when steering is queued, delivering it as pinned guidance', async () => {
    const provider = new FakeProvider([{ ...text('no'), stopReason: 'refusal' }, text('fine, done')]);
    const { agent } = agentWith(provider);
    agent.steer('it is for a test fixture');
    const result = await agent.send('do it');
    expect(result).toMatchObject({ text: 'fine, done', stopReason: 'end_turn', modelCalls: 2 });
    expect(provider.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'it is for a test fixture' }],
      pin: 'guidance',
    });
  });

  it('replays the assistant response and calls again on pause_turn', async () => {
    const provider = new FakeProvider([{ ...text('thinking…'), stopReason: 'pause_turn' }, text('done')]);
    const { agent } = agentWith(provider);
    const result = await agent.send('long task');
    expect(result).toMatchObject({ text: 'done', modelCalls: 2 });
    expect(provider.requests[1]!.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'thinking…' }],
    });
  });

  it('fails the turn on an unknown stop reason without calling again', async () => {
    const provider = new FakeProvider([
      { ...text('?'), stopReason: 'unknown', rawStopReason: 'weird_reason' },
      text('never'),
    ]);
    const { agent, events } = agentWith(provider);
    const error = await agent.send('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('AGENT_UNKNOWN_STOP_REASON');
    expect((error as AgentError).message).toBe('fake: unknown stop reason "weird_reason"');
    expect(provider.remaining).toBe(1);
    expect(events.at(-1)).toEqual({ type: 'error', error });
  });

  it('ends a context-window-exceeded turn with a typed error that keeps the partial text', async () => {
    const provider = new FakeProvider([{ ...text('partial answer'), stopReason: 'context_window_exceeded' }]);
    const { agent } = agentWith(provider);
    const error = (await agent.send('x').catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('AGENT_CONTEXT_WINDOW_EXCEEDED');
    expect(error.partialText).toBe('partial answer');
    expect(agent.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'partial answer' }] });
  });

  it('ends a max_tokens turn with AGENT_OUTPUT_TRUNCATED and answers its dangling tool calls', async () => {
    const provider = new FakeProvider([
      {
        content: [
          { type: 'text', text: 'cut' },
          { type: 'tool_use', id: 'd1', name: 'echo', input: {} },
        ],
        stopReason: 'max_tokens',
      },
      text('next'),
    ]);
    const { agent } = agentWith(provider);
    const error = (await agent.send('x').catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('AGENT_OUTPUT_TRUNCATED');
    expect(error.partialText).toBe('cut');
    // The transcript stays valid for the next turn: every tool_use has a result.
    expect(agent.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'd1', name: 'echo', content: 'not run: the turn ended first', isError: true },
      ],
    });
    await agent.send('again');
    expect(provider.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
  });

  it('counts usage exactly once across calls, compaction included', async () => {
    const provider = new FakeProvider([
      toolCall('echo', {}, 't1', undefined, { inputTokens: 100, outputTokens: 10 }),
      text('done', { inputTokens: 200, outputTokens: 20 }),
    ]);
    let compactions = 0;
    const { agent, events } = agentWith(provider, {
      compactor: {
        async compact(input) {
          if (compactions++ > 0) return undefined;
          return {
            messages: [...input.messages],
            usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 1, reasoningTokens: 0 },
            summarizedMessages: 0,
          };
        },
      },
    });
    const result = await agent.send('go');
    expect(result.usage).toEqual({ inputTokens: 307, outputTokens: 33, cachedInputTokens: 1, reasoningTokens: 0 });
    expect(agent.usage).toEqual(result.usage);
    expect(events.filter((e) => e.type === 'usage').map((e) => e.type === 'usage' && e.source)).toEqual([
      'compaction',
      'model',
      'model',
    ]);
    // A second turn adds only its own calls.
    const provider2 = new FakeProvider([text('x', { inputTokens: 1, outputTokens: 1 })]);
    const again = new Agent({
      provider: provider2,
      model: 'm',
      system: '',
      messages: agent.messages,
      usage: agent.usage,
    });
    await again.send('more');
    expect(again.usage).toEqual({ inputTokens: 308, outputTokens: 34, cachedInputTokens: 1, reasoningTokens: 0 });
  });

  it('asks the approver before each call and reports a denial as a pinned tool error', async () => {
    const provider = new FakeProvider([toolCall('danger', { value: 'x' }, 't1'), text('ok')]);
    let ran = false;
    const danger: AgentTool = {
      ...echoTool('danger', 'exec'),
      run: async () => ((ran = true), { output: 'ran', isError: false }),
    };
    const { agent } = agentWith(provider, {
      tools: [danger],
      approve: async () => ({ allow: false, message: 'denied by the user: no', pinned: 'danger was denied' }),
    });
    await agent.send('go');
    expect(ran).toBe(false);
    expect(provider.requests[1]!.messages.at(-1)!.content).toEqual([
      {
        type: 'tool_result',
        toolUseId: 't1',
        name: 'danger',
        content: 'denied by the user: no',
        isError: true,
        pinned: 'danger was denied',
      },
    ]);
  });

  it('delivers steering at the next tool boundary, mid-turn', async () => {
    let agentRef: Agent | undefined;
    const provider = new FakeProvider([toolCall('echo', {}, 't1'), text('adjusted')]);
    const { agent } = agentWith(provider, {
      tools: [
        echoTool('echo', 'read', () => {
          agentRef!.steer('use tabs, not spaces');
          return 'ok';
        }),
      ],
    });
    agentRef = agent;
    await agent.send('format it');
    expect(provider.requests[1]!.messages.slice(-2)).toEqual([
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 't1', name: 'echo', content: 'ok', isError: false }],
      },
      { role: 'user', content: [{ type: 'text', text: 'use tabs, not spaces' }], pin: 'guidance' },
    ]);
    expect(agent.takeSteering()).toEqual([]);
  });

  it('turns an abort into AGENT_INTERRUPTED and keeps the transcript valid', async () => {
    const controller = new AbortController();
    const provider = new FakeProvider([toolCall('slow', {}, 's1'), text('after')]);
    const slow: AgentTool = {
      effect: 'read',
      spec: { name: 'slow', description: 'waits', inputSchema: { type: 'object' } },
      run: (_input, { signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const { agent, events } = agentWith(provider, {
      tools: [slow],
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'tool_use') controller.abort();
      },
    });
    const error = (await agent.send('go', { signal: controller.signal }).catch((e: unknown) => e)) as AgentError;
    expect(error.code).toBe('AGENT_INTERRUPTED');
    expect(agent.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 's1', name: 'slow', content: 'not run: the turn ended first', isError: true },
      ],
    });
    expect(agent.running).toBe(false);
  });

  it('refuses a second send while a turn runs', async () => {
    let release!: () => void;
    const provider = new FakeProvider([() => new Promise((resolve) => (release = () => resolve(text('a'))))]);
    const { agent } = agentWith(provider);
    const first = agent.send('one');
    await expect(agent.send('two')).rejects.toMatchObject({ code: 'AGENT_BUSY' });
    release();
    await first;
  });

  it('switches model and effort for the next call', async () => {
    const provider = new FakeProvider([text('a'), text('b')]);
    const { agent } = agentWith(provider);
    await agent.send('one');
    agent.setModel('m2', 'high');
    await agent.send('two');
    expect(provider.requests.map((r) => [r.model, r.effort])).toEqual([
      ['m1', undefined],
      ['m2', 'high'],
    ]);
  });
});
