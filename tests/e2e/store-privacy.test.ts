/**
 * The store and the daemon socket are this user's alone: NEO_HOME is created 0700 and its files
 * 0600 whatever the umask, an older open store is closed once with a notice, and the session
 * daemon's socket lives only in a folder both sides check is private — never at a predictable
 * name in the shared temp folder.
 */
import { chmod, chown, lchown, lstat, mkdir, readdir, rm, stat, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { attachToServer } from '../../engine/server/attach/client.js';
import { serverPaths } from '../../engine/server/paths.js';
import { contentHash } from '../../engine/util/content-hash.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Runs neo under `umask 022`, as most shells do. */
async function neoUmask022(args: string[], options: { cwd: string; env: Record<string, string> }) {
  const result = await execa('sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, NEO_BIN, ...args], {
    cwd: options.cwd,
    env: { NO_COLOR: '1', ...options.env },
    reject: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory()) out.push(...(await walk(path)));
  }
  return out;
}

const mode = async (path: string) => ((await lstat(path)).mode & 0o777).toString(8);

async function scriptRepo(root: string): Promise<string> {
  const repo = join(root, 'repo');
  await writeTree(repo, {
    'plan.yaml': [
      'name: p',
      'defaults: { backend: script }',
      'workspace: { isolation: worktree }',
      'steps:',
      '  - { id: edit, brief: write a file, script: write.yaml }',
      '',
    ].join('\n'),
    'write.yaml': 'turns:\n  - actions:\n      - write: { path: out.txt, content: "a brief, a diff\\n" }\n',
  });
  await commitAll(repo);
  return repo;
}

describe('the store is private', () => {
  it('a fresh NEO_HOME is 0700 and every file neo writes in it 0600, under umask 022', async () => {
    const root = await tempDir('neo-store-');
    const home = join(root, 'home');
    const repo = await scriptRepo(root);
    const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
    cleanups.push(() => runNeo(['session', 'daemon', '--stop'], { env }));
    expect((await neoUmask022(['flow', 'run', 'plan.yaml'], { cwd: repo, env })).exitCode).toBe(0);
    const started = await neoUmask022(
      ['session', 'start', '--backend', 'script', '--script', 'write.yaml', '--brief', 'x', '--json'],
      { cwd: repo, env },
    );
    expect(started.exitCode, started.stderr).toBe(0);
    const { sessionId } = JSON.parse(started.stdout) as { sessionId: string };
    expect((await neoUmask022(['session', 'read', sessionId, '--json'], { cwd: repo, env })).exitCode).toBe(0);
    expect((await neoUmask022(['session', 'stop', sessionId], { cwd: repo, env })).exitCode).toBe(0);
    expect((await neoUmask022(['trust'], { cwd: repo, env })).exitCode).toBe(0);

    expect(await mode(home)).toBe('700');
    const files = [];
    for (const path of await walk(home)) {
      const rel = relative(home, path);
      // A worktree is the user's checkout (its modes are git's); the folder above it is closed.
      if (rel.startsWith('worktrees/') || rel.includes('/objects/')) continue;
      const info = await lstat(path);
      if (info.isFile()) files.push(`${rel} ${(info.mode & 0o777).toString(8)}`);
    }
    expect(files.length).toBeGreaterThan(8);
    expect(
      files.filter((line) => !line.endsWith(' 600')),
      files.join('\n'),
    ).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        `code-sessions/${sessionId}/events.jsonl 600`,
        `code-sessions/${sessionId}/meta.json 600`,
        'trust.json 600',
      ]),
    );
  });

  it('an older store open to others is closed on the first command, said once', async () => {
    const root = await tempDir('neo-store-');
    const home = join(root, 'home');
    await writeTree(home, {
      'runs/20260101-000000-000001/run.json': '{}\n',
      'cache/flows/old.json': '{}\n',
    });
    // Under a folder others may enter (a temp folder of the test's own is closed to them).
    await chmod(root, 0o755);
    await chmod(home, 0o755);
    await chmod(join(home, 'runs/20260101-000000-000001/run.json'), 0o644);
    const env = { NEO_HOME: home };
    const first = await runNeo(['trust', '--list'], { cwd: root, env });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toBe(
      `neo: ${home} was readable by other users (mode 755); made it and the 6 files and folders in it private (0700/0600)`,
    );
    expect(await mode(home)).toBe('700');
    expect(await mode(join(home, 'runs/20260101-000000-000001/run.json'))).toBe('600');
    expect(await mode(join(home, 'cache/flows'))).toBe('700');
    const second = await runNeo(['trust', '--list'], { cwd: root, env });
    expect(second.stderr).toBe('');
  });

  it('a store under a folder others cannot enter is closed quietly (nobody else could read it)', async () => {
    const root = await tempDir('neo-store-');
    const home = join(root, 'home');
    await writeTree(home, { 'runs/20260101-000000-000001/run.json': '{}\n' });
    await chmod(home, 0o755);
    const result = await runNeo(['trust', '--list'], { cwd: root, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(await mode(home)).toBe('700');
    expect(await mode(join(home, 'runs/20260101-000000-000001/run.json'))).toBe('600');
  });
});

describe('the session daemon socket', () => {
  /** A NEO_HOME too long to hold a socket, and a temp folder of the test's own. */
  async function longHome() {
    const root = await tempDir('neo-sock-');
    const home = join(root, 'h'.repeat(100));
    const repo = await scriptRepo(root);
    const tmp = join(root, 'tmp');
    await mkdir(tmp);
    await chmod(tmp, 0o1777);
    const env = { NEO_HOME: home, NEO_SOCKET_TMPDIR: tmp, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
    cleanups.push(() => runNeo(['session', 'daemon', '--stop'], { env }));
    return { root, home, repo, tmp, env };
  }

  async function listen(path: string): Promise<{ received: string[]; server: Server }> {
    const received: string[] = [];
    const server = createServer((socket) => socket.on('data', (chunk) => received.push(chunk.toString('utf8'))));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return { received, server };
  }

  const start = ['session', 'start', '--backend', 'script', '--script', 'write.yaml', '--brief', 'the secret plan'];

  it('is never at a name another user can take first in the shared temp folder', async () => {
    const { home, repo, tmp, env } = await longHome();
    // Another local user listens first where the daemon's socket used to be predictable.
    const squatter = await listen(join(tmp, `neo-sessions-${contentHash(home).slice(0, 16)}.sock`));
    const result = await runNeo([...start, '--json'], { cwd: repo, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const { sessionId } = JSON.parse(result.stdout) as { sessionId: string };
    await runNeo(['session', 'stop', sessionId], { cwd: repo, env });
    expect(squatter.received).toEqual([]);
    const dir = join(tmp, `neo-${process.getuid!()}`);
    expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
  });

  it('refuses a socket folder that is open to others or is a link, without talking through it', async () => {
    const { repo, tmp, env } = await longHome();
    const dir = join(tmp, `neo-${process.getuid!()}`);
    await mkdir(dir, { mode: 0o777 });
    await chmod(dir, 0o777);
    const open = await runNeo(start, { cwd: repo, env });
    expect(open.exitCode).not.toBe(0);
    expect(open.stderr).toContain(
      `error[SESSION_DAEMON_UNSAFE_SOCKET]: the session daemon's socket is unsafe: the socket folder ${dir} is open to other users (mode 777): neo will not talk through it`,
    );
    await chmod(dir, 0o700);
    await execa('rmdir', [dir]);
    // A link of this user's own is followed: where it leads must be private too.
    const elsewhere = join(tmp, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o755 });
    await chmod(elsewhere, 0o755);
    await symlink(elsewhere, dir);
    const linked = await runNeo(start, { cwd: repo, env });
    expect(linked.exitCode).not.toBe(0);
    expect(linked.stderr).toContain(`socket folder ${dir} is open to other users (mode 755)`);
  });

  it.runIf(process.getuid?.() === 0)(
    'refuses a socket folder or a socket another user owns (run as root)',
    async () => {
      const { home, repo, tmp, env } = await longHome();
      const dir = join(tmp, `neo-${process.getuid!()}`);
      await mkdir(dir, { mode: 0o700 });
      await chown(dir, 4242, 4242);
      const theirs = await runNeo(start, { cwd: repo, env });
      expect(theirs.stderr).toContain(`socket folder ${dir} belongs to user 4242, not to you (0)`);
      await chown(dir, 0, 0);
      const socket = join(dir, `session-daemon-${contentHash(home).slice(0, 16)}.sock`);
      const squatter = await listen(socket);
      await chown(socket, 4242, 4242);
      const foreign = await runNeo(start, { cwd: repo, env });
      expect(foreign.stderr).toContain(`${socket} belongs to user 4242, not to you (0)`);
      expect(squatter.received).toEqual([]);
      // A link in the shared temp folder that another user planted is not followed.
      await rm(dir, { recursive: true });
      const elsewhere = join(tmp, 'elsewhere');
      await mkdir(elsewhere, { mode: 0o700 });
      await symlink(elsewhere, dir);
      await lchown(dir, 4242, 4242);
      const planted = await runNeo(start, { cwd: repo, env });
      expect(planted.stderr).toContain(`socket folder ${dir} is a symbolic link made by user 4242, not by you (0)`);
    },
  );
});

describe("neo serve's attach socket", () => {
  it('a run never attaches to a socket in a folder open to others, nor at the old shared name', async () => {
    const root = await tempDir('neo-sock-');
    const home = join(root, 'h'.repeat(100));
    const tmp = join(root, 'tmp');
    await mkdir(tmp);
    await chmod(tmp, 0o1777);
    const previous = process.env.NEO_SOCKET_TMPDIR;
    process.env.NEO_SOCKET_TMPDIR = tmp;
    cleanups.push(async () =>
      previous === undefined ? delete process.env.NEO_SOCKET_TMPDIR : (process.env.NEO_SOCKET_TMPDIR = previous),
    );
    const socket = serverPaths(home).attachSocket;
    expect(socket).toBe(join(tmp, `neo-${process.getuid!()}`, `serve-${contentHash(home).slice(0, 16)}.sock`));
    await mkdir(join(tmp, `neo-${process.getuid!()}`), { mode: 0o777 });
    await chmod(join(tmp, `neo-${process.getuid!()}`), 0o777);
    const received: string[] = [];
    const server = createServer((s) => s.on('data', (chunk) => received.push(chunk.toString('utf8'))));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    await expect(attachToServer(home, 'neo persona run x')).rejects.toMatchObject({
      code: 'SERVER_UNSAFE_SOCKET',
      message: expect.stringContaining(
        `the socket folder ${join(tmp, `neo-${process.getuid!()}`)} is open to other users`,
      ),
    });
    expect(received).toEqual([]);
  });
});
