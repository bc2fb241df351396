import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Posture } from '../../../../engine/definitions/index.js';
import { AcpFileSystem } from '../../../../engine/transports/acp/client-fs.js';
import { effortSwitch, modelSwitch, readChoices } from '../../../../engine/transports/acp/config.js';
import { acpMcpServers } from '../../../../engine/transports/acp/mcp.js';
import { resolveModeId } from '../../../../engine/transports/acp/modes.js';
import { permissionOutcome } from '../../../../engine/transports/acp/permission.js';
import { UpdateTranslator } from '../../../../engine/transports/acp/updates.js';
import { tempDir } from '../../../helpers/temp.js';

describe('ACP modes', () => {
  const modes = ['default', 'autoEdit', 'yolo', 'plan'].map((id) => ({ id }));

  it('takes the descriptor mode, matches URL-style ids by suffix, and fails closed on a missing mode', () => {
    expect(resolveModeId('gemini', 'acceptEdits', { mode: 'autoEdit' }, undefined, modes)).toBe('autoEdit');
    const copilot = ['agent', 'plan'].map((m) => ({
      id: `https://agentclientprotocol.com/protocol/session-modes#${m}`,
    }));
    expect(resolveModeId('copilot', 'plan', { mode: 'plan' }, undefined, copilot)).toBe(
      'https://agentclientprotocol.com/protocol/session-modes#plan',
    );
    expect(() => resolveModeId('gemini', 'plan', { mode: 'plan' }, undefined, modes.slice(0, 3))).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' }),
    );
  });

  it('falls back to the descriptor modes table, then to well-known ids; no modes at all means gate-only', () => {
    expect(resolveModeId('x', 'full', {}, { full: 'yolo' }, modes)).toBe('yolo');
    expect(resolveModeId('x', 'full', {}, undefined, modes)).toBe('yolo');
    expect(resolveModeId('x', 'default', {}, undefined, [{ id: 'normal' }, { id: 'spec' }])).toBe('normal');
    expect(resolveModeId('x', 'default', {}, undefined, [])).toBeUndefined();
    expect(resolveModeId('x', 'plan', { mode: 'plan' }, undefined, [])).toBe('plan');
    expect(() => resolveModeId('x', 'acceptEdits', {}, undefined, [{ id: 'only' }])).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' }),
    );
  });
});

describe('ACP model and effort', () => {
  const configOptions = [
    {
      id: 'model',
      category: 'model',
      type: 'select',
      currentValue: 'a',
      options: [{ group: 'x', name: 'X', options: [{ value: 'a', name: 'Model A' }, { value: 'b' }] }],
    },
    {
      id: 'effort',
      category: 'thought_level',
      type: 'select',
      options: [{ value: 'low' }, { value: 'high' }, { value: 'xhigh' }],
    },
  ];

  it('prefers config options (grouped values too), falls back to session/set_model', () => {
    const choices = readChoices({ configOptions });
    expect(modelSwitch('x', choices, 'Model A')).toEqual({
      method: 'session/set_config_option',
      params: { configId: 'model', value: 'a' },
    });
    expect(() => modelSwitch('x', choices, 'c')).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_MODEL_UNSUPPORTED' }),
    );
    expect(
      modelSwitch(
        'x',
        readChoices({ models: { currentModelId: 'm1', availableModels: [{ modelId: 'm1' }, { modelId: 'm2' }] } }),
        'm2',
      ),
    ).toEqual({ method: 'session/set_model', params: { modelId: 'm2' } });
    expect(modelSwitch('x', readChoices({}), 'any')).toEqual({
      method: 'session/set_model',
      params: { modelId: 'any' },
    });
  });

  it('maps effort onto the thought_level option; max takes the highest level offered', () => {
    const choices = readChoices({ configOptions });
    expect(effortSwitch('x', choices, 'high')).toEqual({
      method: 'session/set_config_option',
      params: { configId: 'effort', value: 'high' },
    });
    expect(effortSwitch('x', choices, 'max').params).toEqual({ configId: 'effort', value: 'xhigh' });
    expect(() => effortSwitch('x', choices, 'medium')).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_EFFORT_UNSUPPORTED' }),
    );
    expect(() => effortSwitch('x', readChoices({}), 'low')).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_EFFORT_UNSUPPORTED' }),
    );
  });
});

describe('ACP session/update translation', () => {
  it('joins chunks per message and kind, maps tool calls and their updates, and tracks cost and mode', () => {
    const t = new UpdateTranslator('fake-acp');
    const events = [
      ...t.translate({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Think' } }),
      ...t.translate({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'Hel' } }),
      ...t.translate({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'lo' } }),
      ...t.translate({
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'Run ls',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'ls' },
      }),
      ...t.translate({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' }),
      ...t.translate({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        content: [
          { type: 'content', content: { type: 'text', text: 'a\nb' } },
          { type: 'diff', path: '/r/x' },
        ],
      }),
      ...t.translate({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c2',
        status: 'failed',
        rawOutput: { error: 'no' },
      }),
      ...t.translate({ sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency: 'USD' } }),
      ...t.translate({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }),
      ...t.translate({ sessionUpdate: 'available_commands_update', availableCommands: [] }),
      ...t.translate({ sessionUpdate: 'something_new' }),
      ...t.translate({ sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'text', text: 'Bye' } }),
      ...t.flush(),
    ];
    expect(events).toEqual([
      { type: 'reasoning', text: 'Think' },
      { type: 'text', text: 'Hello' },
      { type: 'tool_use', id: 'c1', name: 'execute', input: { command: 'ls' } },
      { type: 'tool_result', id: 'c1', output: 'a\nb\ndiff /r/x', isError: false },
      { type: 'tool_use', id: 'c2', name: 'other', input: { title: undefined, locations: [] } },
      { type: 'tool_result', id: 'c2', output: '{"error":"no"}', isError: true },
      { type: 'text', text: 'Bye' },
    ]);
    expect(t.costTotal).toBe(0.5);
    expect(t.currentModeId).toBe('plan');
    expect(t.takeTurnText()).toBe('Bye');
    expect(
      t.translate({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 9, currency: 'EUR' } }),
    ).toEqual([]);
    expect(t.costTotal).toBe(0.5);
  });

  it('renders plans as reasoning', () => {
    expect(
      new UpdateTranslator('fake-acp').translate({
        sessionUpdate: 'plan',
        entries: [
          { content: 'a', status: 'completed' },
          { content: 'b', status: 'pending' },
        ],
      }),
    ).toEqual([{ type: 'reasoning', text: 'Plan:\n- [completed] a\n- [pending] b' }]);
  });
});

describe('ACP permission and MCP', () => {
  const options = [
    { optionId: 'always', kind: 'allow_always' },
    { optionId: 'once', kind: 'allow_once' },
    { optionId: 'no', kind: 'reject_once' },
  ];

  it('picks the once option of the matching kind, else always, else cancelled', () => {
    expect(permissionOutcome(options, true)).toEqual({ outcome: { outcome: 'selected', optionId: 'once' } });
    expect(permissionOutcome(options, false)).toEqual({ outcome: { outcome: 'selected', optionId: 'no' } });
    expect(permissionOutcome([{ optionId: 'always', kind: 'allow_always' }], true)).toEqual({
      outcome: { outcome: 'selected', optionId: 'always' },
    });
    expect(permissionOutcome([{ optionId: 'always', kind: 'allow_always' }], false)).toEqual({
      outcome: { outcome: 'cancelled' },
    });
  });

  it('converts MCP servers to ACP form, keeping only transports the agent supports', () => {
    expect(
      acpMcpServers(
        {
          a: { command: 'x', args: [1], env: { K: 'v' } },
          b: { url: 'http://h' },
          c: { type: 'sse', url: 'http://s' },
          d: { nothing: true },
        },
        { http: true },
      ),
    ).toEqual({
      list: [
        { name: 'a', command: 'x', args: ['1'], env: [{ name: 'K', value: 'v' }] },
        { type: 'http', name: 'b', url: 'http://h', headers: [] },
      ],
      applied: ['mcp:a', 'mcp:b'],
      ignored: ['mcp:c', 'mcp:d'],
      reasons: {
        'mcp:c': 'the agent does not advertise sse MCP servers (mcpCapabilities.sse)',
        'mcp:d': 'it names neither a command nor a URL',
      },
    });
  });
});

describe('ACP client file system', () => {
  async function setup(posture: Posture) {
    const root = await tempDir();
    const cwd = join(root, 'repo');
    await mkdir(cwd);
    await writeFile(join(cwd, 'a.txt'), 'l1\nl2\nl3\nl4');
    await writeFile(join(root, 'secret.txt'), 'no');
    await symlink(root, join(cwd, 'escape'));
    let current = posture;
    return { root, cwd, fs: new AcpFileSystem(cwd, () => current), set: (p: Posture) => (current = p) };
  }

  it('reads and writes inside the working tree, with line and limit', async () => {
    const { cwd, fs } = await setup('default');
    expect(await fs.read({ path: join(cwd, 'a.txt') })).toEqual({ content: 'l1\nl2\nl3\nl4' });
    expect(await fs.read({ path: join(cwd, 'a.txt'), line: 2, limit: 2 })).toEqual({ content: 'l2\nl3' });
    // A file not written yet reads as empty (agents read before they write; Gemini fails on an error).
    expect(await fs.read({ path: join(cwd, 'new/dir/b.txt') })).toEqual({ content: '' });
    expect(await fs.write({ path: join(cwd, 'new/dir/b.txt'), content: 'hi' })).toEqual({});
    expect(await readFile(join(cwd, 'new/dir/b.txt'), 'utf8')).toBe('hi');
  });

  it('refuses paths outside the tree (symlinks included) unless full, relative paths always, and writes under plan', async () => {
    const { root, cwd, fs, set } = await setup('acceptEdits');
    await expect(fs.read({ path: join(root, 'secret.txt') })).rejects.toMatchObject({
      code: -32602,
      message: `neo: read refused: ${join(root, 'secret.txt')} is outside the workspace ${cwd}`,
    });
    await expect(fs.read({ path: join(cwd, 'escape/secret.txt') })).rejects.toMatchObject({ code: -32602 });
    await expect(fs.write({ path: join(cwd, 'escape/x.txt'), content: '' })).rejects.toMatchObject({ code: -32602 });
    // Git's metadata is never written below full: git runs the commands its config names.
    await mkdir(join(cwd, '.git'));
    await expect(fs.write({ path: join(cwd, '.git/config'), content: '[core]\n' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`neo: write refused: ${join(cwd, '.git/config')} is git metadata (.git)`),
    });
    expect(await fs.read({ path: join(cwd, '.git/config') })).toEqual({ content: '' });
    await expect(fs.read({ path: 'a.txt' })).rejects.toMatchObject({ message: 'fs read needs an absolute path' });
    set('plan');
    await expect(fs.write({ path: join(cwd, 'x.txt'), content: '' })).rejects.toMatchObject({
      message: 'neo: posture plan forbids writing files',
    });
    expect(await fs.read({ path: join(cwd, 'a.txt'), limit: 1 })).toEqual({ content: 'l1' });
    set('full');
    expect(await fs.read({ path: join(root, 'secret.txt') })).toEqual({ content: 'no' });
  });
});
