import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../../engine/definitions/index.js';
import {
  ASK_EVERY_COMMAND,
  USER_SETTINGS_ONLY,
  buildClaudeArgs,
  bypassRefusal,
  PROTOCOL_ARGS,
} from '../../../../engine/transports/claude-code/argv.js';
import {
  assistantEvents,
  resultFailure,
  resultProviderCode,
  resultUsage,
  retryFailure,
  toolResultEvents,
} from '../../../../engine/transports/claude-code/translate.js';

describe('claude stream-json translation', () => {
  it('maps assistant blocks to text, reasoning and tool_use; subagent text and synthetic API errors are not agent output', () => {
    const message = {
      type: 'assistant',
      parent_tool_use_id: null,
      message: {
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'hi' },
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
          { type: 'image' },
        ],
      },
    };
    expect(assistantEvents(message)).toEqual([
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'hi' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    expect(assistantEvents({ ...message, parent_tool_use_id: 'toolu_0' })).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    expect(assistantEvents({ ...message, is_api_error_message: true })).toEqual([]);
  });

  it('maps echoed tool results, whatever shape their content has', () => {
    const user = {
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'done', is_error: false },
          {
            type: 'tool_result',
            tool_use_id: 'b',
            content: [
              { type: 'text', text: 'line 1' },
              { type: 'text', text: 'line 2' },
            ],
            is_error: true,
          },
          { type: 'text', text: 'not a result' },
        ],
      },
    };
    expect(toolResultEvents(user)).toEqual([
      { type: 'tool_result', id: 'a', output: 'done', isError: false },
      { type: 'tool_result', id: 'b', output: 'line 1\nline 2', isError: true },
    ]);
  });

  it('reads per-turn usage counting cache reads and writes as input', () => {
    expect(
      resultUsage({
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 20,
          cache_creation_input_tokens: 5,
          output_tokens: 7,
          output_tokens_details: { thinking_tokens: 3 },
        },
      }),
    ).toEqual({ inputTokens: 35, cachedInputTokens: 20, outputTokens: 7, reasoningTokens: 3 });
    expect(resultUsage({})).toBeUndefined();
  });

  it('explains failed results and spots rate limits', () => {
    expect(
      resultFailure({
        subtype: 'success',
        is_error: true,
        result: 'Not logged in · Please run /login',
        terminal_reason: 'api_error',
      }),
    ).toBe('claude turn failed: Not logged in · Please run /login (api_error)');
    expect(resultFailure({ subtype: 'error_max_turns', is_error: true, errors: ['max turns reached'] })).toBe(
      'claude turn failed: max turns reached',
    );
    expect(resultFailure({ subtype: 'error_during_execution', is_error: true })).toBe(
      'claude turn failed: result subtype error_during_execution',
    );
  });

  it('names the provider failure behind a failed result and behind each api_retry line (captured shapes)', () => {
    expect(resultProviderCode({ api_error_status: 429 }, undefined)).toBe('TRANSPORT_RATE_LIMITED');
    expect(resultProviderCode({ result: 'API Error: 529 Overloaded' }, undefined)).toBe('TRANSPORT_RATE_LIMITED');
    expect(
      resultProviderCode({ result: 'API Error: 500 Internal server error', api_error_status: 500 }, undefined),
    ).toBe('TRANSPORT_PROVIDER_ERROR');
    expect(resultProviderCode({ result: 'Not logged in · Please run /login' }, 'authentication_failed')).toBe(
      'TRANSPORT_UNAUTHENTICATED',
    );
    expect(resultProviderCode({ result: 'max turns reached' }, undefined)).toBeUndefined();
    // claude 2.1.332 against a server answering 401, and against a port nothing listens on.
    expect(
      retryFailure({ subtype: 'api_retry', attempt: 1, error_status: 401, error: 'authentication_failed' }),
    ).toEqual({
      status: 401,
      said: 'authentication_failed',
      code: 'TRANSPORT_UNAUTHENTICATED',
    });
    expect(retryFailure({ subtype: 'api_retry', attempt: 1, error_status: null, error: 'unknown' })).toEqual({
      status: undefined,
      said: 'unknown',
      code: 'TRANSPORT_PROVIDER_UNREACHABLE',
    });
    expect(retryFailure({ subtype: 'api_retry', error_status: 500, error: 'server_error' }).code).toBe(
      'TRANSPORT_PROVIDER_ERROR',
    );
  });
});

describe('claude argv', () => {
  const descriptor = {
    description: 'x',
    protocol: 'claude-code',
    postureMap: {},
    clarifySupport: true,
    granularity: 'stream',
    honorsAllowedTools: true,
    costProfile: 'metered',
    modelSelection: 'per-turn',
  } as Backend;

  it('uses the descriptor protocol args when it names them, else the built-in ones', () => {
    const base = { sessionId: 's', cwd: '/', brief: 'b', posture: 'default' as const };
    expect(buildClaudeArgs({ ...base, descriptor }, { mode: 'plan' })).toEqual({
      args: [
        ...PROTOCOL_ARGS,
        ...ASK_EVERY_COMMAND,
        ...USER_SETTINGS_ONLY,
        '--add-dir',
        '/',
        '--permission-mode',
        'plan',
      ],
      provision: undefined,
    });
    const custom = { ...descriptor, command: { bin: 'claude', args: ['--print', '--verbose'] } };
    expect(buildClaudeArgs({ ...base, descriptor: custom, resumeSessionId: 'abc' }, {}).args).toEqual([
      '--print',
      '--verbose',
      '--settings',
      '{"permissions":{"ask":["Bash"]}}',
      '--setting-sources',
      'user',
      '--add-dir',
      '/',
      '--permission-mode',
      'default',
      '--resume',
      'abc',
    ]);
  });

  it("passes MCP servers with --mcp-config, without the keys only neo's own agent reads", () => {
    const base = { sessionId: 's', cwd: '/', brief: 'b', posture: 'default' as const, descriptor };
    const docs = { command: 'node', args: ['docs.mjs'], env: { T: '${T}' }, readOnly: ['search'], timeout: '30s' };
    const { args, provision } = buildClaudeArgs({ ...base, provision: { mcpServers: { docs } } }, {});
    const config = args[args.indexOf('--mcp-config') + 1]!;
    expect(JSON.parse(config)).toEqual({
      mcpServers: { docs: { command: 'node', args: ['docs.mjs'], env: { T: '${T}' } } },
    });
    expect(provision).toEqual({ applied: ['mcp:docs'], ignored: [] });
  });

  it('refuses bypassPermissions only as root without IS_SANDBOX=1 (which neo sets only when it confines claude)', () => {
    expect(bypassRefusal('bypassPermissions', {}, 0)).toContain('sandbox: bwrap');
    expect(bypassRefusal('bypassPermissions', { IS_SANDBOX: '1' }, 0)).toBeUndefined();
    expect(bypassRefusal('bypassPermissions', {}, 1000)).toBeUndefined();
    expect(bypassRefusal('acceptEdits', {}, 0)).toBeUndefined();
  });
});
