import { describe, expect, it } from 'vitest';
import { decideAsk, type Posture, type ToolAsk } from '../../../engine/posture/index.js';

const ROOT = '/work/ws';
const edit = (...paths: string[]): ToolAsk => ({ kind: 'edit', toolName: 'Write', paths });
const read = (...paths: string[]): ToolAsk => ({ kind: 'read', toolName: 'Read', paths });
const run: ToolAsk = { kind: 'execute', toolName: 'Bash', paths: [], command: 'npm test' };
const decide = (posture: Posture, ask: ToolAsk) => decideAsk(posture, ask, { root: ROOT }).kind;

describe('the posture gate', () => {
  it('follows the table for asks inside the workspace', () => {
    const table = (['plan', 'default', 'acceptEdits', 'full'] as const).map((p) => [
      p,
      decide(p, read('a.ts')),
      decide(p, edit('a.ts')),
      decide(p, run),
    ]);
    expect(table).toEqual([
      ['plan', 'allow', 'deny', 'deny'],
      ['default', 'allow', 'ask', 'ask'],
      ['acceptEdits', 'allow', 'allow', 'ask'],
      ['full', 'allow', 'allow', 'allow'],
    ]);
  });

  it('denies an edit outside the workspace below full, naming the path', () => {
    for (const path of ['/work/other/a.ts', '../a.ts', 'src/../../a.ts', '/etc/passwd']) {
      const decision = decideAsk('acceptEdits', edit('ok.ts', path), { root: ROOT });
      expect(decision.kind).toBe('deny');
      expect(decision.reason).toContain(`${path} is outside the workspace ${ROOT}`);
    }
    expect(decide('default', edit('/work/other/a.ts'))).toBe('deny');
    expect(decide('full', edit('/work/other/a.ts'))).toBe('allow');
  });

  it('decides on the real path when one is given (a symlink out is outside)', () => {
    const decision = decideAsk('acceptEdits', edit('link/a.ts'), {
      root: ROOT,
      resolved: [{ given: 'link/a.ts', real: '/elsewhere/a.ts' }],
    });
    expect(decision).toEqual({
      kind: 'deny',
      reason: `link/a.ts is outside the workspace ${ROOT} (it leads to /elsewhere/a.ts); change files inside the workspace only`,
    });
    const dangling = decideAsk('acceptEdits', edit('d'), {
      root: ROOT,
      resolved: [{ given: 'd', problem: '/work/ws/d is a symlink to nothing (a dangling link)' }],
    });
    expect(dangling.kind).toBe('deny');
  });

  it('refuses writes to git metadata below full, on any path that reaches it', () => {
    for (const path of ['.git/config', '.git', 'sub/.git/hooks/pre-commit', `${ROOT}/.GIT/config`]) {
      expect(decideAsk('acceptEdits', edit(path), { root: ROOT }).reason).toMatch(/git metadata/);
      expect(decide('default', edit(path))).toBe('deny');
    }
    const viaLink = decideAsk('acceptEdits', edit('innocent/config'), {
      root: ROOT,
      resolved: [{ given: 'innocent/config', real: `${ROOT}/.git/config` }],
    });
    expect(viaLink.kind).toBe('deny');
    expect(decide('full', edit('.git/config'))).toBe('allow');
    expect(decide('acceptEdits', edit('.github/workflows/ci.yml'))).toBe('allow');
    expect(decide('acceptEdits', edit('.gitignore'))).toBe('allow');
  });

  it("refuses writes to the agent CLI's own configuration in the workspace below full, by any path", () => {
    const agentConfig = ['.factory/mcp.json', '.github/hooks'];
    const context = { root: ROOT, agentConfig };
    for (const path of ['.factory/mcp.json', `${ROOT}/.github/hooks/planted.json`, 'src/../.github/hooks']) {
      const decision = decideAsk('acceptEdits', edit(path), context);
      expect(decision.kind).toBe('deny');
      expect(decision.reason).toMatch(/configures the agent CLI itself/);
    }
    const viaLink = decideAsk('acceptEdits', edit('innocent.json'), {
      ...context,
      resolved: [{ given: 'innocent.json', real: `${ROOT}/.factory/mcp.json` }],
    });
    expect(viaLink.kind).toBe('deny');
    expect(decideAsk('acceptEdits', edit('.factory/droids/reviewer.md'), context).kind).toBe('allow');
    expect(decideAsk('acceptEdits', edit('.github/workflows/ci.yml'), context).kind).toBe('allow');
    expect(decideAsk('full', edit('.factory/mcp.json'), context).kind).toBe('allow');
    // Without the list (a CLI that has a switch for its project config) nothing is special.
    expect(decide('acceptEdits', edit('.factory/mcp.json'))).toBe('allow');
  });

  it('denies an edit whose paths it cannot see, and an ask it cannot read', () => {
    expect(decideAsk('acceptEdits', edit(), { root: ROOT }).reason).toMatch(/cannot tell which files Write changes/);
    expect(
      decideAsk(
        'default',
        { kind: 'execute', toolName: 'x', paths: [], unreadable: 'gemini: {"title":"x"}' },
        { root: ROOT },
      ),
    ).toEqual({ kind: 'deny', reason: 'neo cannot read this permission ask, so it is denied: gemini: {"title":"x"}' });
  });

  it('asks the driver about a read outside the workspace', () => {
    expect(decide('acceptEdits', read('/home/me/.ssh/id_rsa'))).toBe('ask');
    expect(decide('plan', read('../secrets'))).toBe('ask');
    expect(decide('plan', read())).toBe('allow');
  });
});
