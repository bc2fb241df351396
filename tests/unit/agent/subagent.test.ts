import { describe, expect, it } from 'vitest';
import {
  Agent,
  SUBAGENT_DEFAULTS,
  Supervisor,
  taskTool,
  type ModelRequest,
  type ModelResponse,
  type Provider,
} from '../../../engine/agent/index.js';

/** A child model: answers its prompt's text back, with `tokens` input tokens per call. */
function childModel(tokens: number, keepGoing = false): Provider {
  return {
    name: 'fake',
    api: 'anthropic',
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const usage = { inputTokens: tokens, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
      if (keepGoing)
        return {
          content: [{ type: 'tool_use', id: `c${Math.random()}`, name: 'nothing', input: {} }],
          stopReason: 'tool_use',
          rawStopReason: 'tool_use',
          usage,
        };
      const prompt = JSON.stringify(request.messages[0]!.content);
      return {
        content: [{ type: 'text', text: `answer to ${prompt}` }],
        stopReason: 'end_turn',
        rawStopReason: 'end_turn',
        usage,
      };
    },
  };
}

function supervisor(provider: Provider, budgets = {}): Supervisor {
  const s: Supervisor = new Supervisor({
    budgets: { ...SUBAGENT_DEFAULTS, ...budgets },
    spawn: (r) =>
      new Agent({ provider, model: 'm', system: 's', maxTurns: r.maxTurns, onEvent: r.onEvent, deltas: false }),
  });
  return s;
}

const signal = new AbortController().signal;

describe('the subagent supervisor and the task tool', () => {
  it('returns every child’s answer and their total usage, once', async () => {
    const tool = taskTool(supervisor(childModel(10)), 0);
    const result = await tool.run({ tasks: [{ prompt: 'one' }, { prompt: 'two', kind: 'general' }] }, { signal });
    expect(result.isError).toBe(false);
    expect(result.output).toContain('## task 1 (inspect): done');
    expect(result.output).toContain('## task 2 (general): done');
    expect(result.usage?.inputTokens).toBe(20);
  });

  it('stops a child at its turn budget and reports it as a result, never a throw', async () => {
    const result = await taskTool(supervisor(childModel(1, true), { maxTurns: 3 }), 0).run(
      { tasks: [{ prompt: 'loop' }] },
      { signal },
    );
    expect(result.isError).toBe(true);
    expect(result.output).toContain('stopped — turn budget: the child made 3 model calls');
    expect(result.usage?.inputTokens).toBe(3);
  });

  it('refuses fan-out over the budget and children deeper than maxDepth', async () => {
    const s = supervisor(childModel(1), { maxFanOut: 1 });
    await expect(taskTool(s, 0).run({ tasks: [{ prompt: 'a' }, { prompt: 'b' }] }, { signal })).rejects.toThrow(
      /fan-out budget: 2 tasks, at most 1/,
    );
    const deep = await s.run({ kind: 'inspect', prompt: 'x' }, 2, signal);
    expect(deep).toMatchObject({ ok: false, reason: 'depth budget: children may nest 1 deep' });
  });

  it('once the session-wide token budget is spent, a new child does not start', async () => {
    const s = supervisor(childModel(600), { maxTokens: 1000 });
    expect((await s.run({ kind: 'inspect', prompt: 'a' }, 1, signal)).ok).toBe(true);
    // The call that crosses was paid for: a child that ends with it keeps its answer.
    expect((await s.run({ kind: 'inspect', prompt: 'b' }, 1, signal)).ok).toBe(true);
    const third = await s.run({ kind: 'inspect', prompt: 'c' }, 1, signal);
    expect(third).toMatchObject({
      ok: false,
      reason: expect.stringContaining('token budget'),
      usage: { inputTokens: 0 },
    });
    expect(s.spent.tokens).toBe(1200);
  });
});
