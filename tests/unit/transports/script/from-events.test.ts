import { beforeEach, describe, expect, test } from 'vitest';
import { tempDir } from '../../../helpers/temp.js';
import { checkScriptText, renderScriptYaml, scriptFromEvents } from '../../../../engine/transports/script/index.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

const CWD = '/home/dev/repo';

/** A Claude Code session as the registry records it: agent events plus annotations. */
const CLAUDE_SESSION: unknown[] = [
  { type: 'created', backend: 'claude-code', posture: 'default', maxPosture: 'acceptEdits', maxRounds: 8 },
  { type: 'started', externalSessionId: '6f1c', model: 'claude-sonnet-4-5' },
  { type: 'reasoning', text: 'Look first.' },
  { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: `${CWD}/src/sum.js` } },
  { type: 'tool_result', id: 'toolu_1', output: '...', isError: false },
  { type: 'text', text: 'Fixing the loop.' },
  {
    type: 'tool_use',
    id: 'toolu_2',
    name: 'Edit',
    input: { file_path: `${CWD}/src/sum.js`, old_string: 'i <= n', new_string: 'i < n' },
  },
  {
    type: 'clarify',
    clarificationId: 'c1',
    toolName: 'Edit',
    input: { file_path: `${CWD}/src/sum.js`, old_string: 'i <= n', new_string: 'i < n' },
  },
  { type: 'clarification', clarificationId: 'c1', toolName: 'Edit', decision: { allow: true } },
  { type: 'tool_result', id: 'toolu_2', output: 'ok', isError: false },
  {
    type: 'tool_use',
    id: 'toolu_3',
    name: 'Write',
    input: { file_path: `${CWD}/NOTES.md`, content: 'line 1\nline 2\n' },
  },
  {
    type: 'tool_use',
    id: 'toolu_4',
    name: 'MultiEdit',
    input: {
      file_path: 'src/a.js',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'c', new_string: 'd', replace_all: true },
      ],
    },
  },
  { type: 'tool_use', id: 'toolu_5', name: 'Bash', input: { command: 'npm test' } },
  { type: 'tool_use', id: 'toolu_6', name: 'Bash', input: { command: 'npm test 2>&1 | tail -5' } },
  { type: 'tool_use', id: 'toolu_7', name: 'Write', input: { file_path: '/etc/hosts', content: 'x' } },
  { type: 'tool_use', id: 'toolu_8', name: 'mcp__db__query', input: { sql: 'select 1' } },
  {
    type: 'turn_complete',
    numTurns: 1,
    costUsd: 0.031,
    usage: { inputTokens: 2100, outputTokens: 180, cachedInputTokens: 1500 },
  },
  { type: 'turn_diff', round: 1, diff: { source: 'git', files: [], summaryLine: '' } },
  { type: 'guidance', source: 'driver', text: 'verify failed: npm test exited 1' },
  { type: 'tool_use', id: 'toolu_9', name: 'WebFetch', input: { url: 'https://example.com' } },
  { type: 'clarify', clarificationId: 'c2', toolName: 'WebFetch', input: { url: 'https://example.com' } },
  { type: 'clarification', clarificationId: 'c2', toolName: 'WebFetch', decision: { allow: false, reason: 'offline' } },
  { type: 'guidance', source: 'deny', text: 'offline' },
  { type: 'text', text: 'Without the docs, then.' },
  { type: 'tool_use', id: 'toolu_10', name: 'Bash', input: { command: ['rm', 'tmp.txt'] } },
  { type: 'turn_complete', numTurns: 2, interrupted: true },
  { type: 'interrupt' },
  { type: 'error', message: 'overloaded', transient: true, fatal: false },
  { type: 'text', text: 'Done.' },
  { type: 'ended', ok: true, text: 'Done.' },
  { type: 'released', reason: 'explicit', outcome: 'success' },
];

describe('scriptFromEvents', () => {
  test('a Claude Code recording becomes turns of script actions', () => {
    const result = scriptFromEvents(CLAUDE_SESSION, { cwd: CWD, description: 'from cs_1' });
    expect(result.script).toEqual({
      description: 'from cs_1',
      model: 'claude-sonnet-4-5',
      turns: [
        {
          actions: [
            { think: 'Look first.' },
            { say: 'Fixing the loop.' },
            { edit: { path: 'src/sum.js', search: 'i <= n', replace: 'i < n' } },
            { write: { path: 'NOTES.md', content: 'line 1\nline 2\n' } },
            { edit: { path: 'src/a.js', search: 'a', replace: 'b' } },
            { edit: { path: 'src/a.js', search: 'c', replace: 'd', all: true } },
            { run: { command: 'npm test' } },
            { run: { command: 'npm test 2>&1 | tail -5' } },
            { ask: { toolName: 'mcp__db__query', input: { sql: 'select 1' }, onAllow: [], onDeny: [] } },
          ],
          cost: { usd: 0.031, inputTokens: 2100, outputTokens: 180, cachedInputTokens: 1500 },
        },
        {
          actions: [
            {
              ask: {
                toolName: 'WebFetch',
                input: { url: 'https://example.com' },
                onAllow: [],
                onDeny: [
                  { say: 'Without the docs, then.' },
                  { run: { command: ['rm', 'tmp.txt'] } },
                  { hang: { note: 'interrupted in the recording' } },
                ],
              },
            },
          ],
        },
        { actions: [{ fail: { message: 'overloaded', transient: true } }] },
        { actions: [{ say: 'Done.' }, { end: { ok: true, text: 'Done.' } }] },
      ],
    });
    expect(result.prompts).toEqual([undefined, 'verify failed: npm test exited 1', 'offline', undefined]);
    expect(result.notes).toEqual(['event 15: Write: /etc/hosts is outside the recorded working tree; left out']);
  });

  test('the rendered YAML carries the modeline and turn comments, and validates', () => {
    const result = scriptFromEvents(CLAUDE_SESSION, { cwd: CWD });
    const text = renderScriptYaml(result.script, {
      schema: '/opt/neo/schemas/script.schema.json',
      turnComments: result.prompts,
      header: ['made by a test'],
    });
    expect(text.split('\n').slice(0, 4)).toEqual([
      '# yaml-language-server: $schema=/opt/neo/schemas/script.schema.json',
      '# made by a test',
      '',
      'model: claude-sonnet-4-5',
    ]);
    expect(text).toContain('  # turn 2 — after: verify failed: npm test exited 1\n');
    expect(text).toContain('content: |\n');
    const check = checkScriptText(text, '/x.yaml');
    // The hang after the recorded actions is the last thing in its list: no warnings either.
    expect(check.diagnostics).toEqual([]);
    expect(check.plan?.script).toEqual(result.script);
  });

  test('script-backend recordings keep their own spellings, renames and expected exits', () => {
    const events = [
      { type: 'started', externalSessionId: 'script-1', model: 'script' },
      { type: 'tool_use', id: 't1.0', name: 'rename', input: { from: 'a.txt', to: 'b/a.txt' } },
      { type: 'tool_use', id: 't1.1', name: 'delete', input: { path: 'old.txt' } },
      { type: 'tool_use', id: 't1.2', name: 'run', input: { command: 'exit 3', cwd: 'sub' } },
      { type: 'tool_result', id: 't1.2', output: '[exit code 3]', isError: false },
      { type: 'tool_use', id: 't1.3', name: 'run', input: { command: ['false'] } },
      { type: 'tool_result', id: 't1.3', output: '[exit code 1]', isError: true },
      { type: 'tool_use', id: 't1.4', name: 'edit', input: { path: 'x', search: 's', replace: 'r', all: true } },
      { type: 'ask', unknown: true },
      'not an event',
    ];
    const result = scriptFromEvents(events);
    expect(result.script.turns).toEqual([
      {
        actions: [
          { rename: { from: 'a.txt', to: 'b/a.txt' } },
          { delete: { path: 'old.txt' } },
          { run: { command: 'exit 3', cwd: 'sub', expectExit: 3 } },
          { run: { command: ['false'] } },
          { edit: { path: 'x', search: 's', replace: 'r', all: true } },
        ],
      },
    ]);
    expect(result.notes).toEqual(['the recording stops mid-turn; its last turn is kept as far as it got']);
  });

  test('an ACP diff with no old text writes the file; a question with no recorded answer counts as allowed', () => {
    const events = [
      { type: 'tool_use', id: '1', name: 'edit', input: { path: 'new.md', oldText: null, newText: 'hello\n' } },
      { type: 'tool_use', id: '2', name: 'deploy_docs', input: { q: 'x' } },
      { type: 'clarify', clarificationId: 'k', toolName: 'deploy_docs', input: { q: 'x' } },
      { type: 'text', text: 'got them' },
      { type: 'turn_complete' },
    ];
    const result = scriptFromEvents(events);
    expect(result.script.turns).toEqual([
      {
        actions: [
          { write: { path: 'new.md', content: 'hello\n' } },
          { ask: { toolName: 'deploy_docs', input: { q: 'x' }, onAllow: [{ say: 'got them' }], onDeny: [] } },
        ],
      },
    ]);
    expect(result.notes).toEqual(['event 3: no recorded answer for clarification k; assumed allowed']);
  });

  test('an empty recording is one empty turn', () => {
    expect(scriptFromEvents([{ type: 'created' }]).script).toEqual({ turns: [{ actions: [] }] });
  });
});
