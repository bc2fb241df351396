import { describe, expect, it } from 'vitest';
import {
  commandAllowed,
  decideAsk,
  editPaths,
  isInside,
  type ClarifyRules,
} from '../../../engine/flow/core/clarify-rules.js';

const rules: ClarifyRules = {
  posture: 'acceptEdits',
  workspace: '/ws/project',
  editToolNames: ['write'],
  allowCommands: ['npm test', 'node --test*'],
};

describe('built-in clarification rules', () => {
  it('allows an edit inside the workspace and denies one outside, or any edit in plan posture', () => {
    expect(decideAsk({ toolName: 'write', input: { path: 'src/a.js' } }, rules)).toEqual({
      allow: true,
      reason: 'edit inside the workspace (src/a.js)',
    });
    expect(decideAsk({ toolName: 'Edit', input: { file_path: '/ws/project/../secrets' } }, rules)).toEqual({
      allow: false,
      reason: '/ws/project/../secrets is outside the workspace /ws/project; edit only files inside it',
    });
    expect(decideAsk({ toolName: 'write', input: { path: 'a' } }, { ...rules, posture: 'plan' })).toEqual({
      allow: false,
      reason: 'this step runs in posture plan: it may read and plan, never edit files',
    });
    expect(
      decideAsk({ toolName: 'apply_patch', input: { patch: '*** Begin Patch\n*** Update File: src/x.ts\n@@' } }, rules)
        .allow,
    ).toBe(true);
    expect(decideAsk({ toolName: 'write', input: {} }, rules)).toEqual({
      allow: false,
      reason: 'cannot tell which file write edits; name the file path explicitly',
    });
  });

  it('allows only listed commands (exact or prefix*), everything in posture full, and denies other tools with a reason', () => {
    expect(decideAsk({ toolName: 'Bash', input: { command: 'npm  test' } }, rules)).toEqual({
      allow: true,
      reason: "`npm  test` is in the step's allowed commands",
    });
    expect(decideAsk({ toolName: 'run', input: { command: ['node', '--test', 'x.js'] } }, rules).allow).toBe(true);
    expect(decideAsk({ toolName: 'Bash', input: { command: 'npm test; rm -rf /' } }, rules)).toEqual({
      allow: false,
      reason:
        "`npm test; rm -rf /` is not an allowed command (allowed: `npm test`, `node --test*`); add it to the step's allowCommands if it is needed",
    });
    expect(decideAsk({ toolName: 'Bash', input: { command: 'ls' } }, { ...rules, allowCommands: [] }).reason).toBe(
      "`ls` is not an allowed command (no commands are allowed in this step); add it to the step's allowCommands if it is needed",
    );
    expect(decideAsk({ toolName: 'WebFetch', input: { url: 'x' } }, rules)).toEqual({
      allow: false,
      reason:
        "WebFetch is not allowed by neo's default rules: only file edits inside the workspace and the step's allowed commands are",
    });
    expect(decideAsk({ toolName: 'WebFetch', input: {} }, { ...rules, posture: 'full' }).allow).toBe(true);
  });

  it('matches paths and commands exactly', () => {
    expect(isInside('/ws', '/ws')).toBe(true);
    expect(isInside('/ws', '/wsx/a')).toBe(false);
    expect(isInside('/ws', 'a/../../b')).toBe(false);
    expect(commandAllowed('node --testx', ['node --test'])).toBe(false);
    expect(editPaths({ changes: [{ path: 'a' }, { path: 'b' }], path: 'a' })).toEqual(['a', 'b']);
  });
});
