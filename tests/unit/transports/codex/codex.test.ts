import { describe, expect, it } from 'vitest';
import { completedItemEvents, toolOf } from '../../../../engine/transports/codex/items.js';
import { codexEffort, codexPosture } from '../../../../engine/transports/codex/posture.js';
import { TokenUsageTracker } from '../../../../engine/transports/codex/usage.js';

describe('codex posture', () => {
  it('accepts only Codex enum spellings and derives the turn-level sandboxPolicy', () => {
    expect(
      codexPosture('acceptEdits', { settings: { sandbox: 'workspace-write', approvalPolicy: 'on-request' } }),
    ).toEqual({
      approvalPolicy: 'on-request',
      sandbox: 'workspace-write',
      sandboxPolicy: {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      },
    });
    expect(codexPosture('plan', { settings: { sandbox: 'read-only', approvalPolicy: 'never' } }).sandboxPolicy).toEqual(
      { type: 'readOnly', networkAccess: false },
    );
    expect(
      codexPosture('full', { settings: { sandbox: 'danger-full-access', approvalPolicy: 'never' } }).sandboxPolicy,
    ).toEqual({ type: 'dangerFullAccess' });
    expect(() => codexPosture('default', { settings: { sandbox: 'read-only', approvalPolicy: 'onRequest' } })).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' }),
    );
    expect(() => codexPosture('default', {})).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' }),
    );
    expect(['low', 'medium', 'high', 'max'].map(codexEffort)).toEqual(['low', 'medium', 'high', 'xhigh']);
  });
});

describe('codex items', () => {
  it('names tool items and reports their results', () => {
    const cmd = {
      type: 'commandExecution',
      id: 'i1',
      command: 'npm test',
      cwd: '/r',
      status: 'completed',
      aggregatedOutput: 'ok',
      exitCode: 0,
    };
    expect(toolOf(cmd)).toEqual({ name: 'commandExecution', input: { command: 'npm test', cwd: '/r' } });
    expect(completedItemEvents(cmd)).toEqual([{ type: 'tool_result', id: 'i1', output: 'ok', isError: false }]);
    expect(completedItemEvents({ ...cmd, exitCode: 1, status: 'failed' })[0]).toMatchObject({ isError: true });
    const change = {
      type: 'fileChange',
      id: 'i2',
      changes: [{ path: '/r/a.ts', kind: { type: 'update' } }],
      status: 'declined',
    };
    expect(toolOf(change)).toEqual({ name: 'fileChange', input: { path: '/r/a.ts', changes: change.changes } });
    expect(completedItemEvents(change)).toEqual([
      { type: 'tool_result', id: 'i2', output: 'declined: update /r/a.ts', isError: true },
    ]);
    expect(toolOf({ type: 'mcpToolCall', server: 'docs', tool: 'search', arguments: { q: 1 } })).toEqual({
      name: 'mcp__docs__search',
      input: { q: 1 },
    });
    expect(toolOf({ type: 'agentMessage', text: 'x' })).toBeUndefined();
  });

  it('maps messages, plans and reasoning to text and reasoning', () => {
    expect(completedItemEvents({ type: 'agentMessage', id: 'm', text: 'Done.' })).toEqual([
      { type: 'text', text: 'Done.' },
    ]);
    expect(completedItemEvents({ type: 'reasoning', id: 'r', summary: ['a', { text: 'b' }], content: [] })).toEqual([
      { type: 'reasoning', text: 'a\nb' },
    ]);
    expect(completedItemEvents({ type: 'userMessage', id: 'u' })).toEqual([]);
  });
});

describe('TokenUsageTracker', () => {
  const u = (input: number, output: number) => ({
    inputTokens: input,
    cachedInputTokens: 0,
    outputTokens: output,
    reasoningOutputTokens: 0,
  });

  it('reports the growth of the running total per turn', () => {
    const t = new TokenUsageTracker();
    expect(t.takeTurnUsage()).toBeUndefined();
    t.observe({ total: u(100, 10), last: u(100, 10) });
    t.observe({ total: u(250, 30), last: u(150, 20) });
    expect(t.takeTurnUsage()).toEqual({ inputTokens: 250, cachedInputTokens: 0, outputTokens: 30, reasoningTokens: 0 });
    t.observe({ total: u(400, 40), last: u(150, 10) });
    expect(t.takeTurnUsage()).toEqual({ inputTokens: 150, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 });
  });

  it('on a resumed thread, the first report sets the baseline to the history before it', () => {
    const t = new TokenUsageTracker();
    t.observe({ total: u(10_000, 900), last: u(300, 20) });
    expect(t.takeTurnUsage()).toEqual({ inputTokens: 300, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0 });
  });
});
