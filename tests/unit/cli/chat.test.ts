import { describe, expect, it } from 'vitest';
import { alwaysPosture, parseAskReply } from '../../../cli/chat/ask-answer.js';
import { askLines, ReceiptPrinter } from '../../../cli/chat/receipts.js';
import { genericResultLines, opInContract, parseSlash } from '../../../cli/chat/slash.js';
import { painter } from '../../../cli/io.js';
import type { Posture, ToolAsk } from '../../../engine/posture/index.js';

const ALL: Posture[] = ['plan', 'default', 'acceptEdits', 'full'];
const edit: ToolAsk = { kind: 'edit', toolName: 'write_file', paths: ['a.txt'] };
const command: ToolAsk = { kind: 'execute', toolName: 'exec', paths: [], command: 'npm test' };
const p = painter(false);

describe('chat: "always" raises the posture only within the ceiling', () => {
  it('is the least posture whose gate allows the ask, above the current one and within the ceiling', () => {
    expect(alwaysPosture(edit, 'default', 'acceptEdits', ALL)).toBe('acceptEdits');
    expect(alwaysPosture(edit, 'default', 'full', ALL)).toBe('acceptEdits');
    expect(alwaysPosture(command, 'acceptEdits', 'full', ALL)).toBe('full');
  });

  it('is not offered when the ceiling, the backend or the ask leaves none', () => {
    expect(alwaysPosture(command, 'acceptEdits', 'acceptEdits', ALL)).toBeUndefined();
    expect(alwaysPosture(edit, 'default', 'default', ALL)).toBeUndefined();
    expect(alwaysPosture(command, 'default', 'full', ['plan', 'default', 'acceptEdits'])).toBeUndefined();
    expect(alwaysPosture(undefined, 'default', 'full', ALL)).toBeUndefined();
    expect(alwaysPosture({ ...command, unreadable: 'odd shape' }, 'default', 'full', ALL)).toBeUndefined();
  });

  it('reads y, n (with a reason) and a — and a only when offered', () => {
    expect(parseAskReply('y', false)).toEqual({ allow: true, always: false });
    expect(parseAskReply(' YES ', false)).toEqual({ allow: true, always: false });
    expect(parseAskReply('n', true)).toEqual({ allow: false });
    expect(parseAskReply('n: not that file', true)).toEqual({ allow: false, reason: 'not that file' });
    expect(parseAskReply('no use git mv', true)).toEqual({ allow: false, reason: 'use git mv' });
    expect(parseAskReply('a', true)).toEqual({ allow: true, always: true });
    expect(parseAskReply('always', false)).toBeUndefined();
    expect(parseAskReply('maybe', true)).toBeUndefined();
  });
});

describe('chat receipts', () => {
  it('prints one line per tool call with its outcome, sanitised', () => {
    const r = new ReceiptPrinter(p);
    expect(r.lines({ type: 'tool_use', id: '1', name: 'exec', input: { command: 'npm test' } })).toEqual([]);
    expect(r.lines({ type: 'tool_result', id: '1', output: 'ok\nmore', isError: false })).toEqual([
      '✓ exec npm test — ok …',
    ]);
    r.lines({ type: 'tool_use', id: '2', name: 'write_file', input: { path: 'x\u001b[31m.txt', content: 'c' } });
    expect(r.lines({ type: 'tool_result', id: '2', output: 'denied by posture', isError: true })).toEqual([
      '✗ write_file x.txt — denied by posture',
    ]);
    expect(r.lines({ type: 'text', text: 'hi \u001b]0;title\u0007there\n' })).toEqual(['hi there']);
    expect(r.lines({ type: 'error', message: 'retrying', transient: true, code: 'X' })).toEqual([
      'notice: X: retrying',
    ]);
    expect(r.lines({ type: 'error', message: 'the turn failed' })).toEqual([]);
  });

  it('asks with the command or the paths, and says when "always" is not within the ceiling', () => {
    const ask = { kind: 'clarification' as const, clarificationId: 'c1', toolName: 'exec', input: {}, ask: command };
    expect(askLines(ask, undefined, p)).toEqual([
      '? exec wants to run `npm test`',
      '  y: allow once · n: deny (n: why) · always: not within the ceiling',
    ]);
    expect(askLines({ ...ask, toolName: 'write_file', ask: edit }, 'acceptEdits', p)[0]).toBe(
      '? write_file wants to write a.txt',
    );
  });
});

describe('chat slash-commands', () => {
  it('maps agent features to ops, available only when the contract has them', () => {
    const undo = parseSlash('/undo');
    expect(undo).toMatchObject({ name: 'optional', command: 'undo', spec: { op: 'undo', needsSession: true } });
    expect(parseSlash('/sessions')).toMatchObject({ spec: { op: 'list-sessions', needsSession: false } });
    expect(opInContract('undo', ['start', 'stop'])).toBe(false);
    expect(opInContract('undo', ['start', 'undo'])).toBe(true);
    expect(parseSlash('/posture full')).toEqual({ name: 'posture', posture: 'full' });
    expect(parseSlash('/QUIT')).toEqual({ name: 'exit' });
    expect(parseSlash('/frobnicate')).toEqual({ name: 'unknown', command: 'frobnicate' });
  });

  it('prints an op result it does not know the shape of as key: value lines', () => {
    expect(genericResultLines({ ok: true, reverted: ['a.txt', 'b.txt'], note: 'done' })).toEqual([
      'reverted:',
      '  - a.txt',
      '  - b.txt',
      'note: done',
    ]);
    expect(genericResultLines({ ok: true })).toEqual(['done']);
  });
});
