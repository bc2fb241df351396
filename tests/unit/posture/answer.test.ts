import { describe, expect, it } from 'vitest';
import { answerAsk, rulesAllowingCommands, toolAskFromInput, type Posture } from '../../../engine/posture/index.js';

type StepRules = { posture: Posture; workspace: string; allowCommands: string[] };
const rules: StepRules = {
  posture: 'acceptEdits',
  workspace: '/ws/project',
  allowCommands: ['npm test', 'node --test*'],
};
/** A flow step's rules (the flow-default persona's): the defaults plus its allowed commands. */
const answer = (toolName: string, input: unknown, r: StepRules = rules) => {
  const verdict = answerAsk(toolAskFromInput(toolName, input, ['write']), {
    posture: r.posture,
    workspace: r.workspace,
    rules: rulesAllowingCommands(r.allowCommands),
    allowCommands: r.allowCommands,
  });
  return { allow: verdict.decision === 'allow', reason: verdict.reason };
};

describe("a flow step's clarification rules", () => {
  it('allows an edit inside the workspace and denies one outside, or any edit in plan posture', () => {
    expect(answer('write', { path: 'src/a.js' })).toEqual({
      allow: true,
      reason: 'edits inside the workspace are allowed',
    });
    expect(answer('Edit', { file_path: '/ws/project/../secrets' })).toEqual({
      allow: false,
      reason: '/ws/project/../secrets is outside the workspace /ws/project; work on files inside it only',
    });
    expect(answer('write', { path: 'a' }, { ...rules, posture: 'plan' })).toEqual({
      allow: false,
      reason: 'this session runs in posture plan: it may read and plan, never edit files or run commands',
    });
    expect(answer('apply_patch', { patch: '*** Begin Patch\n*** Update File: src/x.ts\n@@' }).allow).toBe(true);
    expect(answer('write', {})).toEqual({
      allow: false,
      reason: 'neo cannot tell which files write changes; edit files by path',
    });
  });

  it('allows only listed commands, matched on argv; everything in posture full; other tools denied with a reason', () => {
    expect(answer('Bash', { command: 'npm  test' })).toEqual({
      allow: true,
      reason: "`npm  test` is in the step's allowed commands",
    });
    expect(answer('run', { command: ['node', '--test', 'x.js'] }).allow).toBe(true);
    expect(answer('Bash', { command: 'npm test; rm -rf /' })).toEqual({
      allow: false,
      reason:
        '`npm test; rm -rf /` chains, pipes or redirects commands; run each allowed command on its own (allowed: `npm test`, `node --test*`)',
    });
    expect(answer('Bash', { command: 'node --test $(touch x)' }).allow).toBe(false);
    expect(answer('Bash', { command: 'node --test `touch x`' }).allow).toBe(false);
    expect(answer('Bash', { command: 'node --test\ntouch x' }).allow).toBe(false);
    expect(answer('Bash', { command: 'node --test > x' }).allow).toBe(false);
    expect(answer('Bash', { command: 'ls' }, { ...rules, allowCommands: [] }).reason).toBe(
      "`ls` is not an allowed command (no commands are allowed in this step); add it to the step's allowCommands if it is needed",
    );
    expect(answer('Bash', {}).reason).toBe(
      'neo cannot read the command Bash would run (allowed: `npm test`, `node --test*`)',
    );
    expect(answer('mcp__x__y', { url: 'x' })).toEqual({
      allow: false,
      reason:
        "mcp__x__y is not allowed by neo's default rules: only file edits inside the workspace and the step's allowed commands are",
    });
    expect(answer('WebFetch', {}, { ...rules, posture: 'full' }).allow).toBe(true);
  });
});
