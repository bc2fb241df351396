import { describe, expect, it } from 'vitest';
import { Agent, compactionSplit, SummarizingCompactor, type Message } from '../../../engine/agent/index.js';
import { echoTool } from '../../fixtures/agent/echo-tool.js';
import { FakeProvider, text, toolCall } from '../../fixtures/agent/fake-provider.js';

const user = (t: string, pin?: Message['pin']): Message => ({
  role: 'user',
  content: [{ type: 'text', text: t }],
  ...(pin ? { pin } : {}),
});
const assistant = (t: string): Message => ({ role: 'assistant', content: [{ type: 'text', text: t }] });
const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'exec', input: { command: 'rm -rf build' } }],
});
const result = (id: string, pinned?: string): Message => ({
  role: 'user',
  content: [
    { type: 'tool_result', toolUseId: id, name: 'exec', content: 'ok', isError: false, ...(pinned ? { pinned } : {}) },
  ],
});

describe('compaction split', () => {
  it('keeps the last N turns and never starts the tail on tool results', () => {
    const messages = [
      user('t1'),
      call('a'),
      result('a'),
      assistant('done 1'),
      user('t2'),
      call('b'),
      result('b'),
      user('steer', 'guidance'),
      assistant('done 2'),
      user('t3'),
      assistant('done 3'),
    ];
    expect(compactionSplit(messages, 2)).toBe(7); // turns start at 0, 4, 7 (delivered guidance), 9
    expect(compactionSplit(messages, 1)).toBe(9);
    expect(compactionSplit(messages, 4)).toBe(4); // only 4 turns: keep 3, so something is summarized
  });

  it('falls back to the last assistant message inside one long turn', () => {
    const messages = [user('only turn'), call('a'), result('a'), call('b'), result('b')];
    expect(compactionSplit(messages, 2)).toBe(3);
  });

  it('does not cut when only pinned messages would be summarized', () => {
    expect(compactionSplit([user('s', 'summary'), user('g', 'guidance')], 1)).toBe(0);
  });
});

describe('summarizing compactor', () => {
  it('keeps the summary, every pinned item verbatim and the last turns, and its usage is counted once', async () => {
    const summarizer = new FakeProvider([
      text('SUMMARY: removed build dir after permission.', { inputTokens: 50, outputTokens: 5 }),
    ]);
    const compactor = new SummarizingCompactor({ provider: summarizer, thresholdTokens: 10, keepTurns: 1 });
    const messages: Message[] = [
      user('clean the build'),
      call('a'),
      result('a', 'Permission asked for exec {"command":"rm -rf build"}: allowed.'),
      user('use npm, not yarn', 'guidance'),
      assistant('ok'),
      user('now run tests'),
      assistant('tests pass'),
    ];
    const compacted = await compactor.compact({
      messages,
      system: 'S',
      contextTokens: 5000,
      model: 'm',
      signal: new AbortController().signal,
    });
    expect(compacted!.summarizedMessages).toBe(5);
    expect(compacted!.usage).toEqual({ inputTokens: 50, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(compacted!.messages).toEqual([
      user(
        '<conversation-summary>\nEarlier work in this session, summarized:\nSUMMARY: removed build dir after permission.\n</conversation-summary>',
        'summary',
      ),
      user('Permission asked for exec {"command":"rm -rf build"}: allowed.', 'clarification'),
      user('use npm, not yarn', 'guidance'),
      user('now run tests'),
      assistant('tests pass'),
    ]);
    const request = summarizer.requests[0]!;
    expect(request.tools).toEqual([]);
    expect(request.model).toBe('m');
    const rendered = (request.messages[0]!.content[0] as { text: string }).text;
    expect(rendered).toContain('User: clean the build');
    expect(rendered).toContain('Assistant called exec {"command":"rm -rf build"}');
    expect(rendered).not.toContain('now run tests');
  });

  it('does nothing under the threshold', async () => {
    const compactor = new SummarizingCompactor({ provider: new FakeProvider([]), thresholdTokens: 1000, keepTurns: 1 });
    expect(
      await compactor.compact({
        messages: [user('a'), assistant('b'), user('c')],
        system: '',
        contextTokens: 999,
        model: 'm',
        signal: new AbortController().signal,
      }),
    ).toBeUndefined();
  });

  it('runs inside the loop: the transcript shrinks, pins survive a second compaction, usage adds up once', async () => {
    // One provider serves both the turns and the summaries, as in a real session.
    // Usage figures steer when compaction triggers (threshold 100): after turn 1 (130 tokens)
    // and after turn 2 (144 tokens), each time before the next turn's first call.
    const provider = new FakeProvider([
      toolCall('echo', { value: 'x' }, 't1', undefined, { inputTokens: 10, outputTokens: 5 }),
      text('turn 1 done', { inputTokens: 120, outputTokens: 10 }),
      text('summary one', { inputTokens: 30, outputTokens: 3 }),
      text('turn 2 done', { inputTokens: 140, outputTokens: 4 }),
      text('summary two', { inputTokens: 20, outputTokens: 2 }),
      text('turn 3 done', { inputTokens: 10, outputTokens: 1 }),
    ]);
    const agent = new Agent({
      provider,
      model: 'm',
      system: 'S',
      tools: [echoTool()],
      approve: async () => ({ allow: true, pinned: 'echo was allowed by the user' }),
      compactor: new SummarizingCompactor({ provider, thresholdTokens: 100, keepTurns: 1 }),
    });
    await agent.send('turn one');
    await agent.send('turn two', { pin: 'guidance' });
    await agent.send('turn three');
    expect(agent.messages).toEqual([
      user(
        '<conversation-summary>\nEarlier work in this session, summarized:\nsummary two\n</conversation-summary>',
        'summary',
      ),
      user('echo was allowed by the user', 'clarification'),
      user('turn two', 'guidance'),
      user('turn three'),
      assistant('turn 3 done'),
    ]);
    expect(agent.usage).toEqual({ inputTokens: 330, outputTokens: 25, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(provider.remaining).toBe(0);
    // The second summary request saw the first summary and re-pinned items, not the raw tool call.
    expect(provider.requests[2]!.tools).toEqual([]);
    const second = (provider.requests[4]!.messages[0]!.content[0] as { text: string }).text;
    expect(second).toContain('Earlier summary: <conversation-summary>');
    expect(second).not.toContain('Assistant called echo');
  });
});
