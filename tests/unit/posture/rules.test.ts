import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULES,
  matchClarifyRules,
  rulesAllowingCommands,
  toolAskFromInput,
  type ClarifyRules,
} from '../../../engine/posture/index.js';

const ROOT = '/work/ws';

describe('clarification rules on a normalized ask', () => {
  it('allows edits and reads inside the folder by default, whatever the edit tool is called', () => {
    for (const [tool, input] of [
      ['Write', { file_path: `${ROOT}/a.md` }],
      ['fileChange', { changes: [{ path: `${ROOT}/b.md` }] }],
      ['edit', { path: 'c.md' }],
      ['move', { locations: [{ path: `${ROOT}/d.md` }] }],
    ] as const)
      expect(matchClarifyRules(toolAskFromInput(tool, input), DEFAULT_RULES, ROOT).decision, tool).toBe('allow');
    expect(matchClarifyRules(toolAskFromInput('Write', { file_path: '/tmp/a.md' }), DEFAULT_RULES, ROOT)).toEqual({
      decision: 'deny',
      reason: `/tmp/a.md is outside the workspace ${ROOT}; work on files inside it only`,
      rule: 'otherwise',
    });
    expect(matchClarifyRules(toolAskFromInput('Bash', { command: 'ls' }), DEFAULT_RULES, ROOT).decision).toBe('deny');
  });

  it('allows a listed command exactly, and says why a chained one is refused', () => {
    const rules = rulesAllowingCommands(['node --test*']);
    const decide = (command: string) => matchClarifyRules(toolAskFromInput('Bash', { command }), rules, ROOT);
    expect(decide('node --test').decision).toBe('allow');
    expect(decide('node --test; touch X')).toEqual({
      decision: 'deny',
      reason: '`node --test; touch X` chains, pipes or redirects commands; run each allowed command on its own',
      rule: 'otherwise',
    });
    expect(decide('node --test $(touch X)').reason).toMatch(/holds a command substitution/);
  });

  it('matches a rule by what the call does', () => {
    const rules: ClarifyRules = {
      clarify: [{ decision: 'deny', kind: 'execute', reason: 'no commands' }],
      otherwise: 'ask',
    };
    expect(matchClarifyRules(toolAskFromInput('run_shell_command', { command: 'ls' }), rules, ROOT).reason).toBe(
      'no commands',
    );
    expect(matchClarifyRules(toolAskFromInput('Read', { file_path: 'a' }), rules, ROOT).decision).toBe('ask');
  });
});
