import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, test } from 'vitest';
import type { Posture } from '../../../engine/posture/index.js';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { startScript, types } from '../../helpers/script.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

/**
 * Plays a one-turn script (posture full unless given) and returns the turn's events after
 * `started`, without the gate's own decisions (`gateDecisions` keeps those).
 */
async function playOneTurn(cwd: string, actions: unknown[], posture?: Posture): Promise<AgentEvent[]> {
  const { session, reader } = await startScript({ cwd, script: { turns: [actions] }, ...(posture ? { posture } : {}) });
  const events = await reader.until('turn_complete');
  await session.stop();
  lastGateDecisions = events.filter((e) => e.type === 'gate_decision');
  return events.slice(1).filter((e) => e.type !== 'gate_decision');
}

let lastGateDecisions: AgentEvent[] = [];

function results(events: readonly AgentEvent[]): Array<{ id: string; output: string; isError: boolean }> {
  return events.flatMap((e) => (e.type === 'tool_result' ? [{ id: e.id, output: e.output, isError: e.isError }] : []));
}

for (const flavour of ['plain folder', 'git work tree'] as const) {
  describe(`actions on a ${flavour}`, () => {
    let cwd: string;
    beforeEach(async () => {
      cwd = await tempDir();
      await writeTree(cwd, { 'src/sum.js': 'a + a + b\n', 'keep.txt': 'keep\n' });
      if (flavour === 'git work tree') {
        await execa('git', ['init', '-q'], { cwd });
        await execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.'], { cwd });
        await execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd });
      }
    });

    test('say, think and every file action, with their exact events', async () => {
      const events = await playOneTurn(cwd, [
        { say: 'Starting.' },
        { think: 'Plan it.' },
        { write: { path: 'docs/new file.md', content: '# Notes\n' } },
        { edit: { path: 'src/sum.js', search: 'b', replace: 'c' } },
        { edit: { path: 'src/sum.js', search: 'a', replace: 'x', all: true } },
        { rename: { from: 'keep.txt', to: 'moved/kept.txt' } },
        { delete: { path: 'docs/new file.md' } },
      ]);
      expect(events).toEqual([
        { type: 'text', text: 'Starting.' },
        { type: 'reasoning', text: 'Plan it.' },
        { type: 'tool_use', id: 't1.2', name: 'write', input: { path: 'docs/new file.md', content: '# Notes\n' } },
        { type: 'tool_result', id: 't1.2', output: 'wrote docs/new file.md (8 bytes)', isError: false },
        { type: 'tool_use', id: 't1.3', name: 'edit', input: { path: 'src/sum.js', search: 'b', replace: 'c' } },
        { type: 'tool_result', id: 't1.3', output: 'edited src/sum.js (1 replacement)', isError: false },
        {
          type: 'tool_use',
          id: 't1.4',
          name: 'edit',
          input: { path: 'src/sum.js', search: 'a', replace: 'x', all: true },
        },
        { type: 'tool_result', id: 't1.4', output: 'edited src/sum.js (2 replacements)', isError: false },
        { type: 'tool_use', id: 't1.5', name: 'rename', input: { from: 'keep.txt', to: 'moved/kept.txt' } },
        { type: 'tool_result', id: 't1.5', output: 'renamed keep.txt to moved/kept.txt', isError: false },
        { type: 'tool_use', id: 't1.6', name: 'delete', input: { path: 'docs/new file.md' } },
        { type: 'tool_result', id: 't1.6', output: 'deleted docs/new file.md', isError: false },
        { type: 'turn_complete', numTurns: 1, text: 'Starting.' },
      ]);
      // Every file action passed the posture gate, and the gate said so.
      expect(lastGateDecisions.map((e) => e.type === 'gate_decision' && [e.toolName, e.allow, e.posture])).toEqual([
        ['write', true, 'full'],
        ['edit', true, 'full'],
        ['edit', true, 'full'],
        ['rename', true, 'full'],
        ['delete', true, 'full'],
      ]);
      expect(await readFile(join(cwd, 'src/sum.js'), 'utf8')).toBe('x + x + c\n');
      expect(await readFile(join(cwd, 'moved/kept.txt'), 'utf8')).toBe('keep\n');
      expect((await readdir(cwd)).sort()).toEqual(
        flavour === 'git work tree' ? ['.git', 'docs', 'moved', 'src'] : ['docs', 'moved', 'src'],
      );
      expect(await readdir(join(cwd, 'docs'))).toEqual([]);
      if (flavour === 'git work tree') {
        const status = await execa('git', ['status', '--porcelain', '-uall'], { cwd });
        expect(status.stdout.split('\n').sort()).toEqual([' D keep.txt', ' M src/sum.js', '?? moved/kept.txt']);
      }
    });

    test('failing file actions report an error tool_result and change nothing', async () => {
      const events = await playOneTurn(cwd, [
        { edit: { path: 'src/sum.js', search: 'zzz', replace: 'y' } },
        { edit: { path: 'src/sum.js', search: 'a', replace: 'y' } },
        { edit: { path: 'missing.js', search: 'a', replace: 'y' } },
        { delete: { path: 'missing.js' } },
        { delete: { path: 'src' } },
        { rename: { from: 'missing.js', to: 'other.js' } },
        { say: 'the turn goes on after failed tool calls' },
      ]);
      expect(results(events)).toEqual([
        { id: 't1.0', output: 'edit src/sum.js: the search text was not found', isError: true },
        {
          id: 't1.1',
          output: 'edit src/sum.js: the search text occurs 2 times; add context to make it unique, or set all: true',
          isError: true,
        },
        { id: 't1.2', output: 'edit missing.js: no such file', isError: true },
        { id: 't1.3', output: 'delete missing.js: no such file', isError: true },
        { id: 't1.4', output: 'delete src: is a folder; delete its files one by one', isError: true },
        { id: 't1.5', output: 'rename missing.js: no such file', isError: true },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'turn_complete',
        numTurns: 1,
        text: 'the turn goes on after failed tool calls',
      });
      expect(await readFile(join(cwd, 'src/sum.js'), 'utf8')).toBe('a + a + b\n');
    });

    test('run: argv and shell string, exit codes, cwd and env', async () => {
      await mkdir(join(cwd, 'sub'));
      const events = await playOneTurn(cwd, [
        { run: { command: ['sh', '-c', 'printf "out\\n"; printf "err\\n" >&2'] } },
        { run: { command: 'exit 3' } },
        { run: { command: 'exit 3', expectExit: 3 } },
        { run: { command: ['pwd'], cwd: 'sub' } },
        { run: { command: 'printf "%s" "$GREETING"', env: { GREETING: 'hi there' } } },
        { run: { command: ['definitely-not-a-binary-neo'] } },
      ]);
      const out = results(events);
      expect(out[0]).toEqual({ id: 't1.0', output: 'out\nerr\n[exit code 0]', isError: false });
      expect(out[1]).toEqual({ id: 't1.1', output: '[exit code 3]', isError: true });
      expect(out[2]).toEqual({ id: 't1.2', output: '[exit code 3]', isError: false });
      expect(out[3]!.output).toMatch(/\/sub\n\[exit code 0\]$/);
      expect(out[4]).toEqual({ id: 't1.4', output: 'hi there\n[exit code 0]', isError: false });
      expect(out[5]!.isError).toBe(true);
      expect(out[5]!.output).toMatch(/^failed to start: .*ENOENT/);
      expect(events.filter((e) => e.type === 'tool_use').map((e) => (e as { input: unknown }).input)).toEqual([
        { command: ['sh', '-c', 'printf "out\\n"; printf "err\\n" >&2'] },
        { command: 'exit 3' },
        { command: 'exit 3' },
        { command: ['pwd'], cwd: 'sub' },
        { command: 'printf "%s" "$GREETING"' },
        { command: ['definitely-not-a-binary-neo'] },
      ]);
    });
  });
}

describe('paths that leave the working tree are refused', () => {
  test('relative, absolute and symlinked escapes; nothing is written outside', async () => {
    const root = await tempDir();
    const cwd = join(root, 'tree');
    const outside = join(root, 'outside');
    await mkdir(cwd);
    await mkdir(outside);
    await writeFile(join(outside, 'secret.txt'), 'secret\n');
    await symlink(outside, join(cwd, 'link'));
    await symlink(join(outside, 'ghost.txt'), join(cwd, 'dangling'));
    const events = await playOneTurn(cwd, [
      { write: { path: '../outside/new.txt', content: 'x' } },
      { write: { path: join(outside, 'abs.txt'), content: 'x' } },
      { write: { path: 'link/through.txt', content: 'x' } },
      { edit: { path: 'link/secret.txt', search: 'secret', replace: 'leaked' } },
      { write: { path: 'dangling', content: 'x' } },
      { delete: { path: '../outside/secret.txt' } },
      { rename: { from: 'link/secret.txt', to: 'stolen.txt' } },
      { run: { command: ['pwd'], cwd: '..' } },
      { write: { path: '.', content: 'x' } },
    ]);
    // Even at posture full (which skips the gate's path rules) the script backend acts inside its tree only.
    const tree = `the workspace ${cwd}`;
    expect(results(events).map((r) => [r.output, r.isError])).toEqual([
      [`refused: ../outside/new.txt is outside ${tree}`, true],
      [`refused: ${join(outside, 'abs.txt')} is outside ${tree}`, true],
      [`refused: link/through.txt is outside ${tree} (it leads to ${join(outside, 'through.txt')})`, true],
      [`refused: link/secret.txt is outside ${tree} (it leads to ${join(outside, 'secret.txt')})`, true],
      [`refused: dangling cannot be checked: ${join(cwd, 'dangling')} is a symlink to nothing (a dangling link)`, true],
      [`refused: ../outside/secret.txt is outside ${tree}`, true],
      [`refused: link/secret.txt is outside ${tree} (it leads to ${join(outside, 'secret.txt')})`, true],
      [`refused: .. is outside ${tree}`, true],
      ['refused: . is the working tree itself', true],
    ]);
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(types(events).filter((t) => t === 'tool_use')).toHaveLength(9);
  });
});

describe('below posture full the gate refuses what leaves the tree or touches git metadata', () => {
  test('acceptEdits: an edit outside, through a symlink or into .git is denied before it runs, and recorded', async () => {
    const root = await tempDir();
    const cwd = join(root, 'tree');
    const outside = join(root, 'outside');
    await mkdir(join(cwd, '.git'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(cwd, 'link'));
    await symlink(join(cwd, '.git'), join(cwd, 'innocent'));
    const events = await playOneTurn(
      cwd,
      [
        { write: { path: join(outside, 'abs.txt'), content: 'x' } },
        { write: { path: '../outside/rel.txt', content: 'x' } },
        { write: { path: 'link/through.txt', content: 'x' } },
        { write: { path: '.git/config', content: '[core]\n\tfsmonitor = touch pwned\n' } },
        { write: { path: 'innocent/hooks/pre-commit', content: 'x' } },
        { rename: { from: 'a.txt', to: '.git' } },
        { write: { path: 'ok.txt', content: 'fine' } },
      ],
      'acceptEdits',
    );
    expect(lastGateDecisions.map((e) => e.type === 'gate_decision' && e.allow)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    const outputs = results(events).map((r) => r.output);
    expect(outputs[0]).toBe(
      `denied: ${join(outside, 'abs.txt')} is outside the workspace ${cwd}; change files inside the workspace only`,
    );
    expect(outputs[2]).toContain(`(it leads to ${join(outside, 'through.txt')})`);
    expect(outputs[3]).toMatch(/^denied: \.git\/config is git metadata \(\.git\)/);
    expect(outputs[4]).toMatch(/^denied: innocent\/hooks\/pre-commit is git metadata/);
    expect(outputs[6]).toBe('wrote ok.txt (4 bytes)');
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(join(cwd, '.git'))).toEqual([]);
  });
});
