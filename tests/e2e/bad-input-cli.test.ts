import { execFileSync } from 'node:child_process';
import { readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

async function sandbox() {
  const root = await tempDir();
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(root, { 'repo/.git/HEAD': 'ref: refs/heads/main\n', 'home/.keep': '' });
  return { home, repo, env: { NEO_HOME: home } };
}

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
// A FIFO that nobody writes to would block a reader forever: a short timeout turns a hang into a failure.
const quick = { timeout: 15_000 };

describe('neo validate: what is not a file is a definition problem, never an internal error or a hang', () => {
  it('a FIFO, a symlink loop and a device named on the command line: DEF_NOT_A_FILE, exit 2', async () => {
    const { repo, env } = await sandbox();
    mkfifo(join(repo, 'pipe.flow.yaml'));
    await symlink('loop.flow.yaml', join(repo, 'loop.flow.yaml'));
    const cases: Array<[string, string]> = [
      ['pipe.flow.yaml', 'pipe.flow.yaml:1:1: error[DEF_NOT_A_FILE]: not a regular file: this is a named pipe (FIFO)'],
      [
        'loop.flow.yaml',
        'loop.flow.yaml:1:1: error[DEF_NOT_A_FILE]: not a regular file: this is a loop of symbolic links',
      ],
      ['/dev/null', '/dev/null:1:1: error[DEF_NOT_A_FILE]: not a regular file: this is a character device'],
    ];
    for (const [path, first] of cases) {
      const result = await runNeo(['validate', path], { cwd: repo, env, ...quick });
      expect(result.exitCode, path).toBe(2);
      expect(result.stderr.split('\n')[0], path).toBe(first);
    }
  });

  it('/proc/self/fd/0 on a FIFO whose writer stays open is reported, not read (a read would never end)', async () => {
    const { repo, env } = await sandbox();
    const fifo = join(repo, 'stdin-fifo');
    mkfifo(fifo);
    // fd 3 holds the FIFO open for writing in neo itself, so a read of stdin would wait forever.
    const script = 'exec 3<>"$0"; exec "$1" "$2" validate /proc/self/fd/0 <"$0"';
    const result = await execa('sh', ['-c', script, fifo, process.execPath, NEO_BIN], {
      cwd: repo,
      env: { NO_COLOR: '1', ...env },
      reject: false,
      ...quick,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      '/proc/self/fd/0:1:1: error[DEF_NOT_A_FILE]: not a regular file: this is a named pipe (FIFO)',
    );
  });

  it('a FIFO and a symlink loop inside a layer folder are reported without opening them', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { '.neo/flows/.keep': '' });
    mkfifo(join(repo, '.neo/flows/pipe.yaml'));
    await symlink('loop.yaml', join(repo, '.neo/flows/loop.yaml'));
    const result = await runNeo(['validate'], { cwd: repo, env, ...quick });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n').filter((line) => line.includes('error['))).toEqual([
      // A project-layer link is refused unread before anything else looks at it (it could lead out of the repo).
      `error[DEF_OUTSIDE_REPOSITORY]: .neo/flows/loop.yaml (in ${repo}) is a link that leads nowhere; it is not read`,
      '.neo/flows/pipe.yaml:1:1: error[DEF_NOT_A_FILE]: not a regular file: this is a named pipe (FIFO)',
    ]);
  });

  it('flow run and flow validate of a FIFO plan exit 2 with DEF_NOT_A_FILE', async () => {
    const { repo, env } = await sandbox();
    mkfifo(join(repo, 'plan.yaml'));
    for (const args of [
      ['flow', 'run', 'plan.yaml'],
      ['flow', 'validate', 'plan.yaml'],
    ]) {
      const result = await runNeo(args, { cwd: repo, env, ...quick });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain('error[DEF_NOT_A_FILE]');
    }
  });

  it('deeply nested YAML is DEF_YAML_TOO_DEEP, with a code frame a few lines long', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { 'deep.flow.yaml': `name: deep\nsteps: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n` });
    const result = await runNeo(['validate', 'deep.flow.yaml'], { cwd: repo, env, ...quick });
    expect(result.exitCode).toBe(2);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(
      /^deep\.flow\.yaml:2:\d+: error\[DEF_YAML_TOO_DEEP\]: maps and lists nest too deeply here \(more than 64 levels\)$/,
    );
    expect(result.stderr.length).toBeLessThan(1000);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it('a 5,000-term `||` condition (40 KB) is a located DEF_EXPR_TOO_LONG, exit 2', async () => {
    const { repo, env } = await sandbox();
    const condition = Array.from({ length: 5000 }, () => 'inputs.a').join(' || ');
    await writeTree(repo, {
      'long.flow.yaml': `name: long\ninputs:\n  a: { type: string, default: x }\nsteps:\n  - id: s\n    if: \${{ ${condition} }}\n    run: echo hi\n`,
    });
    const result = await runNeo(['validate', 'long.flow.yaml'], { cwd: repo, env, ...quick });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `long.flow.yaml:6:4108: error[DEF_EXPR_TOO_LONG]: in \`steps[0].if\`: expression is ${condition.length + 2} characters long; the limit is 4096`,
    );
    expect(result.stderr.length).toBeLessThan(1000);
  });

  it('a NUL byte in an input is refused before the run starts: exit 2, the input named, no run recorded', async () => {
    const { repo, home, env } = await sandbox();
    await writeTree(repo, {
      'echo.flow.yaml': 'name: echo\ninputs:\n  a: { type: string }\nsteps:\n  - id: s\n    run: echo "$NEO_INPUT_A"\n',
      'nul.yaml': 'a: "x\\0y"\n',
    });
    const result = await runNeo(['flow', 'run', 'echo.flow.yaml', '--inputs', 'nul.yaml'], {
      cwd: repo,
      env,
      ...quick,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'error[FLOW_INPUT_NUL_BYTE]: input `a` holds a NUL byte: no command or agent can receive it',
    );
    expect(await readdir(join(home, 'runs')).catch(() => [])).toEqual([]);
  });

  it('--inputs naming a FIFO is refused, not read', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { 'echo.flow.yaml': 'name: echo\nsteps:\n  - id: s\n    run: echo hi\n' });
    mkfifo(join(repo, 'inputs.yaml'));
    const result = await runNeo(['flow', 'run', 'echo.flow.yaml', '--inputs', 'inputs.yaml'], {
      cwd: repo,
      env,
      ...quick,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('error[CLI_BAD_INPUTS]: --inputs: ');
    expect(result.stderr).toContain('not a regular file: this is a named pipe (FIFO)');
  });
});
