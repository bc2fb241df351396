import { describe, expect, it } from 'vitest';
import { environmentSecrets, redactDeep, redactor } from '../../../engine/util/redact.js';
import { terminalSafe, terminalSafeDeep } from '../../../engine/util/terminal-text.js';

describe('terminalSafe', () => {
  it.each([
    ['window title (OSC, BEL)', 'a\u001b]0;pwned\u0007b', 'ab'],
    ['window title (OSC, ST)', 'a\u001b]2;pwned\u001b\\b', 'ab'],
    ['hyperlink', '\u001b]8;;https://evil\u0007click\u001b]8;;\u0007', 'click'],
    ['screen clear and cursor home', 'a\u001b[2J\u001b[Hb', 'ab'],
    ['colours and conceal', '\u001b[31;1mred\u001b[8mhidden\u001b[0m', 'redhidden'],
    ['DCS', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['C1 CSI', 'a\u009b2Jb', 'ab'],
    ['C1 OSC', 'a\u009d0;t\u0007b', 'ab'],
    ['a lone ESC at the end', 'ab\u001b', 'ab'],
    ['carriage return overwrite', 'rm -rf /\rls', 'rm -rf /ls'],
    ['backspace, NUL, DEL', 'a\u0008\u0000\u007fb', 'ab'],
    ['bidi override', 'a\u202eb\u2066c', 'abc'],
  ])('strips %s', (_, input, expected) => {
    expect(terminalSafe(input)).toBe(expected);
  });

  it('keeps newlines, tabs and ordinary unicode', () => {
    expect(terminalSafe('a\n\tb · ✓ é')).toBe('a\n\tb · ✓ é');
  });

  it('walks events and keeps what needs nothing as is', () => {
    const clean = { type: 'text', text: 'hello', n: 1 };
    expect(terminalSafeDeep(clean)).toBe(clean);
    expect(terminalSafeDeep({ a: ['x\u001b[2Jy'], b: { c: 'z\u0007' } })).toEqual({ a: ['xy'], b: { c: 'z' } });
  });
});

describe('the redactor', () => {
  it('finds secrets by the names of environment variables, not by their values', () => {
    const found = environmentSecrets({
      ANTHROPIC_API_KEY: 'sk-ant-1',
      GITHUB_TOKEN: 'ghp_1',
      AWS_SECRET_ACCESS_KEY: 's',
      DB_PASSWORD: 'p',
      PATH: '/usr/bin',
      MAX_OUTPUT_TOKENS: '128000',
      SSH_AUTH_SOCK: '/tmp/agent',
    }).map((s) => s.name);
    expect(found).toEqual(['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD']);
  });

  it('replaces the longest secret first and every string of a structure', () => {
    const redact = redactor([
      { name: 'SHORT', value: 'abcdef' },
      { name: 'LONG', value: 'abcdef123456' },
      { name: 'TINY', value: '1234' },
    ]);
    expect(redact('x abcdef123456 abcdef 1234')).toBe('x [redacted ${LONG}] [redacted ${SHORT}] 1234');
    expect(redactDeep({ diff: { unifiedDiff: '+k=abcdef' }, list: ['abcdef'] }, redact)).toEqual({
      diff: { unifiedDiff: '+k=[redacted ${SHORT}]' },
      list: ['[redacted ${SHORT}]'],
    });
  });
});
