import { describe, expect, it } from 'vitest';
import { inspectAnthropic } from '../../../engine/model-server/inspect-anthropic.js';
import { inspectChat } from '../../../engine/model-server/inspect-chat.js';
import { inspectGemini } from '../../../engine/model-server/inspect-gemini.js';
import { inspectResponses } from '../../../engine/model-server/inspect-responses.js';

describe('inspectAnthropic', () => {
  const body = {
    model: 'claude-sonnet-4-5',
    stream: true,
    system: [{ type: 'text', text: 'Primary working directory: /r' }],
    tools: [
      { name: 'Write', input_schema: {} },
      { name: 'Bash', input_schema: {} },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'make a file' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'denied by host', is_error: true },
          { type: 'text', text: '<system-reminder>x</system-reminder>' },
        ],
      },
    ],
  };
  it('finds tools, the last user text (skipping tool-result carriers) and the newest tool results', () => {
    const view = inspectAnthropic(body);
    expect(view).toMatchObject({ api: 'anthropic', model: 'claude-sonnet-4-5', stream: true, lastUser: 'make a file' });
    expect(view.tools).toEqual([
      { name: 'Write', kind: 'function' },
      { name: 'Bash', kind: 'function' },
    ]);
    expect(view.toolResults).toEqual([{ text: 'denied by host', isError: true, tool: 'Write', callId: 'toolu_1' }]);
    expect(view.texts[0]).toBe('Primary working directory: /r');
  });
  it('reads the structured-output schema of a title request', () => {
    const view = inspectAnthropic({
      model: 'm',
      messages: [{ role: 'user', content: 'title this' }],
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(view.tools).toEqual([]);
    expect(view.jsonSchema).toEqual({ type: 'object' });
    expect(view.lastUser).toBe('title this');
    expect(view.toolResults).toEqual([]);
  });
});

describe('inspectResponses', () => {
  it('reads function, custom and namespaced tools, and the outputs after the last assistant item', () => {
    const view = inspectResponses({
      model: 'gpt-5.5',
      stream: true,
      instructions: 'be brief',
      tools: [
        { type: 'function', name: 'exec_command' },
        { type: 'custom', name: 'apply_patch' },
        { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'spawn' }] },
        { type: 'web_search' },
      ],
      input: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context><cwd>/r</cwd></environment_context>' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'create hello.txt' }] },
        { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' },
        {
          type: 'custom_tool_call_output',
          call_id: 'c1',
          output: 'Success. Updated the following files:\nA hello.txt',
        },
      ],
    });
    expect(view.tools).toEqual([
      { name: 'exec_command', kind: 'function' },
      { name: 'apply_patch', kind: 'custom' },
      { name: 'spawn', kind: 'function' },
    ]);
    expect(view.lastUser).toBe('create hello.txt');
    expect(view.toolResults).toEqual([
      { text: 'Success. Updated the following files:\nA hello.txt', isError: false, tool: 'apply_patch', callId: 'c1' },
    ]);
    expect(view.texts).toContain('be brief');
  });
  it('treats a string input as one user message and has no tool results', () => {
    expect(
      inspectResponses({
        model: 'm',
        input: 'hi',
        text: { format: { type: 'json_schema', schema: { type: 'object' } } },
      }),
    ).toMatchObject({ lastUser: 'hi', toolResults: [], jsonSchema: { type: 'object' }, stream: false });
  });
});

describe('inspectChat', () => {
  it('reads function and custom tools, include_usage and trailing tool messages', () => {
    const view = inspectChat({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        { type: 'function', function: { name: 'write' } },
        { type: 'custom', custom: { name: 'apply_patch' } },
      ],
      messages: [
        { role: 'system', content: 'Working directory: /r' },
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Wrote file successfully.' },
      ],
    });
    expect(view).toMatchObject({ api: 'chat', includeUsage: true, lastUser: 'go' });
    expect(view.tools).toEqual([
      { name: 'write', kind: 'function' },
      { name: 'apply_patch', kind: 'custom' },
    ]);
    expect(view.toolResults).toEqual([
      { text: 'Wrote file successfully.', isError: false, tool: 'write', callId: 'call_1' },
    ]);
  });
  it('a user message after the tool results means no tool results', () => {
    const view = inspectChat({
      messages: [
        { role: 'assistant', content: 'x' },
        { role: 'tool', tool_call_id: 'a', content: 'r' },
        { role: 'assistant', content: 'y' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(view.toolResults).toEqual([]);
    expect(view.lastUser).toBe('again');
  });
});

describe('inspectGemini', () => {
  it('reads function declarations and function responses', () => {
    const view = inspectGemini(
      {
        systemInstruction: { parts: [{ text: 'cwd: /r' }] },
        tools: [{ functionDeclarations: [{ name: 'write_file' }] }],
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: [{ functionCall: { name: 'write_file', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { error: 'no' } } }] },
        ],
      },
      'gemini-2.5-pro',
      true,
    );
    expect(view).toMatchObject({ api: 'gemini', model: 'gemini-2.5-pro', stream: true, lastUser: 'go' });
    expect(view.tools).toEqual([{ name: 'write_file', kind: 'function' }]);
    expect(view.toolResults).toEqual([{ text: 'no', isError: true, tool: 'write_file' }]);
  });
});
