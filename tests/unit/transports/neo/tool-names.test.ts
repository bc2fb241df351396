import { describe, expect, it } from 'vitest';
import { splitToolNames } from '../../../../engine/transports/neo/tool-names.js';

describe("a neo session's tool lists", () => {
  it('keeps every session tool when no list is given', () => {
    const split = splitToolNames();
    expect([split.allowed, split.disallowed]).toEqual([undefined, undefined]);
    expect(['task', 'workflow', 'restore_context'].every(split.keep)).toBe(true);
  });

  it('an allowlist names them, also by the Claude Code names; a denylist removes them', () => {
    const allow = splitToolNames(['Read', 'TodoWrite']);
    expect(allow.allowed).toEqual(['Read']);
    expect([allow.keep('workflow'), allow.keep('task'), allow.keep('restore_context')]).toEqual([true, false, true]);
    const deny = splitToolNames(undefined, ['Task', 'Bash']);
    expect(deny.disallowed).toEqual(['Bash']);
    expect([deny.keep('task'), deny.keep('workflow')]).toEqual([false, true]);
  });
});
