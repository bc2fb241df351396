import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UpdateTranslator } from '../../../../engine/transports/acp/updates.js';

const ASKS = fileURLToPath(new URL('../../../fixtures/asks/', import.meta.url));

describe('ACP tool calls: paths and results from each agent’s shapes', () => {
  it('Gemini CLI (no rawInput: a title and locations) names its file, and an empty result says so', () => {
    // gemini 0.61.0 asks before its write_file with no tool_call update first.
    const ask = JSON.parse(readFileSync(join(ASKS, 'gemini', 'edit-inside.json'), 'utf8')) as {
      params: { toolCall: Record<string, unknown> };
    };
    const t = new UpdateTranslator('gemini');
    expect(t.announce(ask.params.toolCall)).toEqual([
      {
        type: 'tool_use',
        id: 'write_file__call_neo80bab92b_1_0',
        name: 'edit',
        input: { title: 'Writing to inside.txt', locations: [{ path: '/sandbox/repo/inside.txt' }] },
        paths: ['/sandbox/repo/inside.txt'],
      },
    ]);
    // Its result is the tool's display: a diff for write_file, nothing at all for some tools.
    expect(
      t.translate({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'write_file__call_neo80bab92b_1_0',
        status: 'completed',
        content: [],
      }),
    ).toEqual([
      {
        type: 'tool_result',
        id: 'write_file__call_neo80bab92b_1_0',
        output: 'diff /sandbox/repo/inside.txt\n+inside',
        isError: false,
      },
    ]);
    expect(
      t.translate({ sessionUpdate: 'tool_call', toolCallId: 'g2', status: 'in_progress', title: 'ls', kind: 'search' }),
    ).toMatchObject([{ type: 'tool_use', id: 'g2', name: 'search' }]);
    expect(
      t.translate({ sessionUpdate: 'tool_call_update', toolCallId: 'g2', status: 'completed', content: [] }),
    ).toEqual([
      {
        type: 'tool_result',
        id: 'g2',
        output: '(gemini reported the call completed and sent no output)',
        isError: false,
      },
    ]);
  });

  it('a call that says nothing yet is held until it does, and announced at the prompt end if it never does', () => {
    const t = new UpdateTranslator('opencode');
    expect(
      t.translate({
        sessionUpdate: 'tool_call',
        toolCallId: 'o1',
        title: 'write',
        kind: 'edit',
        status: 'pending',
        locations: [],
        rawInput: {},
      }),
    ).toEqual([]);
    expect(
      t.translate({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'o1',
        status: 'in_progress',
        kind: 'edit',
        locations: [{ path: '/w/new.txt' }],
        rawInput: { filePath: '/w/new.txt', content: 'new\n' },
      }),
    ).toEqual([
      {
        type: 'tool_use',
        id: 'o1',
        name: 'edit',
        input: { filePath: '/w/new.txt', content: 'new\n' },
        paths: ['/w/new.txt'],
      },
    ]);
    expect(
      t.translate({
        sessionUpdate: 'tool_call',
        toolCallId: 'o2',
        title: 'bash',
        kind: 'execute',
        status: 'pending',
        rawInput: { cwd: '/w' },
        locations: [{ path: '/w' }],
      }),
    ).toEqual([]);
    expect(t.settleTools()).toEqual([{ type: 'tool_use', id: 'o2', name: 'execute', input: { cwd: '/w' } }]);
  });

  it("Copilot's apply_patch names every file of the patch at once; its later asks do not replace the input", () => {
    const t = new UpdateTranslator('copilot');
    const patch =
      '*** Begin Patch\n*** Add File: /w/new.txt\n+new\n*** Update File: /w/README.md\n@@\n-a\n+b\n*** End Patch\n';
    const use = { type: 'tool_use', id: 'c1', name: 'edit', input: patch, paths: ['/w/new.txt', '/w/README.md'] };
    expect(
      t.translate({
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'apply_patch',
        kind: 'edit',
        status: 'pending',
        rawInput: patch,
      }),
    ).toEqual([use]);
    expect(
      t.announce({
        toolCallId: 'c1',
        title: 'Create file',
        kind: 'edit',
        status: 'pending',
        rawInput: { fileName: '/w/new.txt' },
      }),
    ).toEqual([]);
    expect(t.tools.get('c1')?.rawInput).toBe(patch);
  });
});
