/**
 * Each adapter reads its CLI's real permission asks (captured by tests/clis/asks.cli-test.ts with
 * NEO_CAPTURE_ASKS=1 into tests/fixtures/asks/<backend>/) into the ToolAsk the posture gate decides
 * on; an ask it cannot read is denied with a reason naming the backend and the raw shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideAsk, type ToolAsk } from '../../../engine/posture/index.js';
import { readAcpAsk, type CommandSource } from '../../../engine/transports/acp/ask.js';
import { UpdateTranslator } from '../../../engine/transports/acp/updates.js';
import { readClaudeAsk } from '../../../engine/transports/claude-code/ask.js';
import { readCodexAsk } from '../../../engine/transports/codex/ask.js';
import { EXPECTED_ASKS } from '../../clis/harness/expected-asks.js';

type Json = Record<string, unknown>;

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'asks');
const fixture = (backend: string, name: string): Json =>
  JSON.parse(readFileSync(join(FIXTURES, backend, `${name}.json`), 'utf8')) as Json;

/** The ACP agents and where each puts an execute ask's command (their descriptors' askShape). */
const ACP: Record<string, CommandSource> = {
  opencode: 'rawInput',
  copilot: 'rawInput',
  droid: 'rawInput',
  gemini: 'title',
};

/** What the adapter reads from one captured ask, the way its session does. */
function read(backend: string, captured: Json): ToolAsk {
  if (backend === 'claude-code') return readClaudeAsk(captured.request as Json, ['Write', 'Edit', 'MultiEdit']);
  if (backend === 'codex')
    return readCodexAsk(captured.method as string, captured.params as Json, captured.item as Json);
  const params = captured.params as Json;
  const toolCall = params.toolCall as Json;
  const updates = new UpdateTranslator();
  for (const update of captured.updates as Json[]) updates.translate(update);
  const seen = updates.tools.get(toolCall.toolCallId as string);
  const known = seen && { kind: seen.kind, title: seen.title, rawInput: seen.rawInput };
  return readAcpAsk(backend, toolCall, known, ACP[backend]);
}

describe('permission asks from the real CLIs (tests/fixtures/asks)', () => {
  for (const backend of Object.keys(EXPECTED_ASKS)) {
    it(`${backend}: every captured ask reads as the ToolAsk the gate needs`, () => {
      const names = readdirSync(join(FIXTURES, backend)).map((file) => file.replace(/\.json$/, ''));
      expect(names.sort()).toEqual(Object.keys(EXPECTED_ASKS[backend]!).sort());
      for (const name of names)
        expect(read(backend, fixture(backend, name)), name).toEqual(EXPECTED_ASKS[backend]![name as 'command']);
    });

    it(`${backend}: at acceptEdits the gate allows the edit inside, denies the edit outside and leaves the command to the driver`, () => {
      const decide = (name: string) => {
        const expected = EXPECTED_ASKS[backend]![name as 'command'];
        return (
          expected && decideAsk('acceptEdits', read(backend, fixture(backend, name)), { root: '/sandbox/repo' }).kind
        );
      };
      expect(decide('edit-inside')).toBe('allow');
      expect(decide('command')).toBe('ask');
      if (EXPECTED_ASKS[backend]!['edit-outside'] !== undefined) expect(decide('edit-outside')).toBe('deny');
    });
  }
});

describe('an ask neo cannot read is denied, naming the backend and the raw shape', () => {
  const denied = (ask: ToolAsk) => decideAsk('acceptEdits', ask, { root: '/sandbox/repo' });

  it('claude-code: an edit without a file, a Bash call without a command', () => {
    const request = structuredClone(fixture('claude-code', 'edit-inside').request) as Json;
    delete (request.input as Json).file_path;
    const edit = readClaudeAsk(request, ['Write']);
    expect(edit.unreadable).toMatch(
      /^claude-code asked to edit with Write without naming a file; the ask was \{"subtype":"can_use_tool"/,
    );
    expect(denied(edit)).toEqual({ kind: 'deny', reason: expect.stringContaining(edit.unreadable!) });
    const bash = structuredClone(fixture('claude-code', 'command').request) as Json;
    (bash.input as Json).command = ['rm', 'x'];
    expect(readClaudeAsk(bash, []).unreadable).toMatch(
      /^claude-code asked to run Bash without a command string; the ask was /,
    );
    expect(readClaudeAsk({ subtype: 'can_use_tool', input: {} }, []).unreadable).toMatch(/without naming a tool/);
  });

  it('codex: a file change whose item it never announced, a grant of a whole root, a command approval without a command', () => {
    const { method, params } = fixture('codex', 'edit-inside') as { method: string; params: Json };
    const unknownItem = readCodexAsk(method, params, undefined);
    expect(unknownItem.unreadable).toMatch(
      /^codex asked about a file change whose item call_\S+ it never announced; the ask was /,
    );
    expect(denied(unknownItem).kind).toBe('deny');
    const item = fixture('codex', 'edit-inside').item as Json;
    const grant = readCodexAsk(method, { ...params, grantRoot: '/sandbox/repo' }, item);
    expect(grant.unreadable).toMatch(
      /^codex asked for write access to all of \/sandbox\/repo for the rest of the session/,
    );
    expect(denied(grant).kind).toBe('deny');
    const command = fixture('codex', 'command') as { method: string; params: Json };
    expect(readCodexAsk(command.method, { ...command.params, command: null }, undefined).unreadable).toMatch(
      /^codex asked to run a command without naming it; the ask was /,
    );
  });

  for (const backend of Object.keys(ACP)) {
    it(`${backend}: an edit naming no file, a command naming none`, () => {
      const strip = (toolCall: Json): Json => {
        const { locations: _l, content: _c, rawInput: _r, title: _t, ...rest } = toolCall;
        return rest;
      };
      const edit = readAcpAsk(
        backend,
        strip((fixture(backend, 'edit-inside').params as Json).toolCall as Json),
        undefined,
        ACP[backend],
      );
      expect(edit.unreadable).toMatch(
        new RegExp(`^${backend} asked to edit without naming a file; the ask was \\{"toolCallId"`),
      );
      expect(denied(edit)).toEqual({ kind: 'deny', reason: expect.stringContaining(edit.unreadable!) });
      const command = readAcpAsk(
        backend,
        strip((fixture(backend, 'command').params as Json).toolCall as Json),
        undefined,
        ACP[backend],
      );
      expect(command.unreadable).toMatch(
        new RegExp(`^${backend} asked to run a command without naming it; the ask was `),
      );
      expect(denied(command).kind).toBe('deny');
    });
  }

  it('gemini: read as a plain ACP agent (no askShape), its title-only command ask is unreadable', () => {
    const toolCall = (fixture('gemini', 'command').params as Json).toolCall as Json;
    expect(readAcpAsk('gemini', toolCall, undefined).unreadable).toMatch(
      /^gemini asked to run a command without naming it/,
    );
    expect(readAcpAsk('gemini', toolCall, undefined, 'title').command).toBe('rm README.md');
  });

  it('an ACP ask of no known kind with no command', () => {
    const ask = readAcpAsk('some-agent', { toolCallId: 't1', kind: 'other', title: 'Do a thing' }, undefined);
    expect(ask).toMatchObject({ kind: 'execute', toolName: 'other' });
    expect(ask.unreadable).toBe(
      'some-agent asked about a tool call of no known kind, naming no command; the ask was {"toolCallId":"t1","kind":"other","title":"Do a thing"}',
    );
  });
});
