import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundShells, builtinTools, type AgentTool } from '../../../engine/agent/index.js';
import { groupAlive, livingGroupMembers } from '../../../engine/execution/index.js';
import { tempDir } from '../../helpers/temp.js';

function setup(cwd: string, shells: BackgroundShells, env: NodeJS.ProcessEnv = process.env): Record<string, AgentTool> {
  return Object.fromEntries(
    builtinTools({ cwd, env, shells, execTimeoutMs: 20_000, ripgrep: null }).map((t) => [t.spec.name, t]),
  );
}
const signal = new AbortController().signal;

/** Polls a condition (a process state, a file) until it holds; never a fixed sleep. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('exec', () => {
  it('returns combined output and marks a failing exit code', async () => {
    const cwd = await tempDir();
    const t = setup(cwd, new BackgroundShells(join(cwd, '.shells')));
    expect(await t.exec!.run({ command: 'echo out; echo err >&2; pwd' }, { signal })).toEqual({
      output: `out\nerr\n${cwd}`,
      isError: false,
    });
    expect(await t.exec!.run({ command: 'echo nope; exit 3' }, { signal })).toEqual({
      output: 'nope\n[exit code 3]',
      isError: true,
    });
    expect(await t.exec!.run({ command: 'true' }, { signal })).toEqual({ output: '(no output)', isError: false });
  });

  it('kills the whole process group on timeout', async () => {
    const cwd = await tempDir();
    const t = setup(cwd, new BackgroundShells(join(cwd, '.shells')));
    const result = await t.exec!.run({ command: 'sleep 30 & echo child=$!; sleep 30', timeout_ms: 300 }, { signal });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^child=(\d+)\n\[timed out after 300ms; the process group was killed\]$/);
    const child = Number(/child=(\d+)/.exec(result.output)![1]);
    await until(() => !isAlive(child), 'the backgrounded child to die');
  });

  it('passes commands only the allowlisted environment: no key, token or URL of neo’s', async () => {
    const cwd = await tempDir();
    const { commandEnv } = await import('../../../engine/agent/index.js');
    const env = commandEnv({ ...process.env, NEO_TEST_KEY: 'sk-should-not-leak', GITHUB_TOKEN: 'ghp_nope', LANG: 'C' });
    const t = setup(cwd, new BackgroundShells(join(cwd, '.shells')), env);
    expect(
      await t.exec!.run(
        { command: 'echo "key=${NEO_TEST_KEY:-unset} gh=${GITHUB_TOKEN:-unset} lang=$LANG"' },
        { signal },
      ),
    ).toEqual({ output: 'key=unset gh=unset lang=C', isError: false });
  });
});

describe('background shells', () => {
  it('returns a shell id, then only new output on each bash_output', async () => {
    const cwd = await tempDir();
    const shells = new BackgroundShells(join(cwd, '.shells'));
    const t = setup(cwd, shells);
    const started = await t.exec!.run(
      { command: 'echo one; while [ ! -f go ]; do sleep 0.02; done; echo two', run_in_background: true },
      { signal },
    );
    expect(started.output).toMatch(/^started background shell sh_1 \(pid \d+\)/);
    await until(
      async () => (await readdir(join(cwd, '.shells'))).includes('sh_1.log') && shells.get('sh_1') !== undefined,
      'the log',
    );
    let first = '';
    await until(
      async () => (first += (await t.bash_output!.run({ shell_id: 'sh_1' }, { signal })).output).includes('one'),
      'first output',
    );
    expect(first).toContain('[sh_1 running]\none\n');
    expect((await t.bash_output!.run({ shell_id: 'sh_1' }, { signal })).output).toBe('[sh_1 running] (no new output)');
    await import('node:fs/promises').then((fs) => fs.writeFile(join(cwd, 'go'), ''));
    await until(() => shells.get('sh_1')!.exitCode === 0, 'the shell to exit');
    expect((await t.bash_output!.run({ shell_id: 'sh_1' }, { signal })).output).toBe('[sh_1 exited (code 0)]\ntwo\n');
  });

  it('caps a read to the newest bytes and skips the rest', async () => {
    const cwd = await tempDir();
    const shells = new BackgroundShells(join(cwd, '.shells'));
    const t = setup(cwd, shells);
    await t.exec!.run({ command: 'printf "0123456789abcdef"', run_in_background: true }, { signal });
    await until(() => shells.get('sh_1')?.exitCode === 0, 'exit');
    expect((await t.bash_output!.run({ shell_id: 'sh_1', max_bytes: 4 }, { signal })).output).toBe(
      '[sh_1 exited (code 0)] [12 earlier bytes skipped]\ncdef',
    );
    expect((await t.bash_output!.run({ shell_id: 'sh_1' }, { signal })).output).toBe(
      '[sh_1 exited (code 0)] (no new output)',
    );
  });

  it('kill_shell takes down the shell and its children; killAll leaves nothing running', async () => {
    const cwd = await tempDir();
    const shells = new BackgroundShells(join(cwd, '.shells'));
    const t = setup(cwd, shells);
    await t.exec!.run({ command: 'trap "" TERM; sleep 60 & sleep 60', run_in_background: true }, { signal });
    await t.exec!.run({ command: 'sleep 60 & sleep 60 & wait', run_in_background: true }, { signal });
    const [a, b] = shells.list();
    await until(
      () => livingGroupMembers(a!.pid).length >= 2 && livingGroupMembers(b!.pid).length >= 3,
      'the children to start',
    );
    // sh_1 ignores SIGTERM: kill_shell must escalate to SIGKILL.
    expect((await t.kill_shell!.run({ shell_id: 'sh_1' }, { signal })).output).toBe('sh_1 exited (killed by SIGKILL)');
    expect(groupAlive(a!.pid)).toBe(false);
    expect(groupAlive(b!.pid)).toBe(true);
    await shells.killAll();
    expect(groupAlive(b!.pid)).toBe(false);
    await expect(t.exec!.run({ command: 'true', run_in_background: true }, { signal })).rejects.toThrow(
      'the session is stopping',
    );
    expect(await t.bash_output!.run({ shell_id: 'sh_9' }, { signal }).catch((e: Error) => e.message)).toBe(
      'no background shell sh_9; shells: sh_1, sh_2',
    );
  });
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}
