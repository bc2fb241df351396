/**
 * Escape attempts, run for real in bwrap (CI installs bubblewrap through .ci/run): each is
 * refused and reported, and each has its control (the same act allowed), so none can pass by
 * not trying.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  confinedSpec,
  probeSandbox,
  programBind,
  requireSandbox,
  sandboxOf,
  type Confinement,
} from '../../../engine/execution/index.js';
import { tempDir } from '../../helpers/temp.js';

// Outside /tmp (which the sandbox replaces with its own), so "read-only host" is what refuses.
let base: string;
let ws: string;
let checkout: string;
let home: string;
let neoHome: string;
let runDir: string;
let outDir: string;
let server: Server;
let port: number;

beforeAll(async () => {
  base = await realpath(await mkdtemp('/var/tmp/neo-sandbox-'));
  ws = join(base, 'ws');
  checkout = join(base, 'checkout');
  home = join(base, 'home');
  neoHome = join(base, 'neo-home');
  runDir = join(neoHome, 'runs', 'r1');
  outDir = join(neoHome, 'io', 'out-1');
  for (const dir of [ws, checkout, home, runDir, outDir]) await mkdir(dir, { recursive: true });
  await writeFile(join(checkout, 'main.ts'), 'original\n');
  await writeFile(join(home, 'secret'), 'home secret\n');
  await writeFile(join(neoHome, 'secret'), 'neo secret\n');
  server = createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.close();
  await rm(base, { recursive: true, force: true });
});

const confinement = (over: Partial<Confinement> = {}): Confinement => ({
  workspace: ws,
  cwd: ws,
  neoHome,
  binds: [{ path: outDir, write: true }],
  network: false,
  env: { ...process.env, HOME: home, NEO_HOME: neoHome },
  timeoutMs: 20_000,
  ...over,
});
const inBwrap = (script: string, over: Partial<Confinement> = {}) =>
  sandboxOf('bwrap').run(['/bin/sh', '-c', script], confinedSpec(confinement(over)), { graceMs: 300 });
const connect = `node -e "require('net').connect(${'$'}PORT, '127.0.0.1').on('data', d => process.stdout.write(d)).on('error', e => { console.error(e.code); process.exit(3) })"`;

describe('bwrap works here', () => {
  it('the probe says so, with its version', async () => {
    const found = await probeSandbox('bwrap');
    expect(found).toMatchObject({ kind: 'bwrap', available: true });
    expect(found.version).toMatch(/bubblewrap \d/);
  });
});

describe('escape attempts in bwrap are refused and reported', () => {
  it("the workspace and a step's own output folder are writable (the control)", async () => {
    const result = await inBwrap(`echo made > made.txt && echo out > ${outDir}/output`);
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(join(outDir, 'output'), 'utf8')).toBe('out\n');
  });

  it('writing to the checkout outside the workspace fails: the host is read-only', async () => {
    const result = await inBwrap(`echo evil > ${checkout}/main.ts`);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(checkout, 'main.ts'), 'utf8')).toBe('original\n');
  });

  it("$HOME is an empty private folder: its files cannot be read, a write never reaches the user's", async () => {
    const result = await inBwrap('cat "$HOME/secret"; echo evil > "$HOME/planted"; ls -A "$HOME"');
    expect(result.stderr).toMatch(/secret: No such file/);
    expect(result.stdout).toBe('planted\n');
    expect(existsSync(join(home, 'planted'))).toBe(false);
  });

  it("NEO_HOME is hidden, the run's own folder too; only the output folder bound shows", async () => {
    const result = await inBwrap(
      `cat "$NEO_HOME/secret"; echo evil > "$NEO_HOME/planted"; ls "$NEO_HOME/runs"; ls "$NEO_HOME"`,
    );
    expect(result.stderr).toMatch(/secret: No such file/);
    expect(result.stderr).toMatch(/runs': No such file/);
    expect(result.stdout).toBe('io\nplanted\n');
    expect(existsSync(join(neoHome, 'planted'))).toBe(false);
    expect(readFileSync(join(neoHome, 'secret'), 'utf8')).toBe('neo secret\n');
  });

  it('with network off a socket reaches nothing; on, the same connection works (the control)', async () => {
    const env = { ...process.env, HOME: home, NEO_HOME: neoHome, PORT: String(port) };
    const off = await inBwrap(connect, { env });
    expect(off.exitCode).toBe(3);
    expect(off.stderr).toMatch(/ECONNREFUSED|ENETUNREACH/);
    const on = await inBwrap(connect, { env, network: true });
    expect(on).toMatchObject({ exitCode: 0, stdout: 'hello\n' });
  });

  it("daemons' sockets under /run are hidden", async () => {
    const result = await inBwrap('ls -A /run | wc -l');
    expect(result).toMatchObject({ exitCode: 0, stdout: '0\n' });
  });

  it('a fork bomb is bounded by the timeout, and nothing of it outlives the sandbox', async () => {
    const mark = `neo-bomb-${process.pid}-${Date.now()}`;
    const env = { ...process.env, HOME: home, NEO_HOME: neoHome, BOMB: mark };
    const result = await inBwrap('while :; do sleep 600 & done', { env, timeoutMs: 1_500 });
    expect(result).toMatchObject({ timedOut: true, failed: true });
    await expect.poll(() => processesMarked(mark), { timeout: 5_000 }).toEqual([]);
  });
});

describe('what is hidden stays hidden whatever is bound', () => {
  // The usual layout: NEO_HOME in the home, a CLI installed by `npm install` in the home folder.
  const layout = async () => {
    const userHome = join(base, 'user-home');
    const homeNeo = join(userHome, '.neo');
    const bin = join(userHome, 'node_modules', '.bin', 'tool');
    await mkdir(join(userHome, '.ssh'), { recursive: true });
    await mkdir(join(homeNeo, 'code-sessions', 'cs_1'), { recursive: true });
    await mkdir(join(userHome, 'node_modules', 'tool'), { recursive: true });
    await mkdir(join(userHome, 'node_modules', '.bin'), { recursive: true });
    await writeFile(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
    const tool = join(userHome, 'node_modules', 'tool', 'tool.sh');
    await writeFile(tool, '#!/bin/sh\ncat "$HOME/.ssh/id_rsa"; ls -A "$NEO_HOME"; echo ran\n');
    await chmod(tool, 0o755);
    await symlink('../tool/tool.sh', bin).catch(() => undefined);
    const spec = confinedSpec(
      confinement({ neoHome: homeNeo, env: { ...process.env, HOME: userHome, NEO_HOME: homeNeo } }),
    );
    return { userHome, homeNeo, bin, spec };
  };

  it('a CLI installed under the home runs, and sees neither ~/.ssh nor NEO_HOME', async () => {
    const { bin, spec } = await layout();
    const binds = [...programBind(bin, spec.binds, spec.hide), ...spec.binds];
    const result = await sandboxOf('bwrap').run([bin], { ...spec, binds }, { graceMs: 300 });
    expect(result.stderr).toMatch(/id_rsa: No such file/);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ran\n' });
  });

  it('a bind that holds hidden trees shows what it holds but them (the control reads a file beside them)', async () => {
    const { userHome, spec } = await layout();
    await writeFile(join(userHome, 'notes.txt'), 'visible\n');
    const binds = [...spec.binds, { path: userHome }];
    const result = await sandboxOf('bwrap').run(
      ['/bin/sh', '-c', 'cat "$HOME/notes.txt"; cat "$HOME/.ssh/id_rsa"; ls -A "$NEO_HOME"'],
      { ...spec, binds },
      { graceMs: 300 },
    );
    // The home itself is bound by name (so it shows); NEO_HOME inside it is hidden again.
    expect(result.stdout).toBe('visible\nPRIVATE KEY\n');
    const above = await sandboxOf('bwrap').run(
      ['/bin/sh', '-c', 'cat "$HOME/notes.txt"; cat "$HOME/.ssh/id_rsa"; ls -A "$NEO_HOME"'],
      { ...spec, binds: [...spec.binds, { path: base }] },
      { graceMs: 300 },
    );
    expect(above.stderr).toMatch(/notes.txt: No such file/);
    expect(above.stderr).toMatch(/id_rsa: No such file/);
    expect(above.stdout).toBe('');
  });

  it("neo's own socket folder outside NEO_HOME (TMPDIR elsewhere) is hidden: nothing to find, nothing to connect to", async () => {
    const tmp = join(base, 'tmpdir');
    const folder = join(tmp, `neo-${process.getuid!()}`);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const socket = join(folder, 'session-daemon-0123456789abcdef.sock');
    const daemon = createServer((c) => c.end('daemon\n'));
    await new Promise<void>((resolve) => daemon.listen(socket, resolve));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const script = `ls -A ${folder}; node -e "require('net').connect('${socket}').on('data', d => process.stdout.write(d)).on('error', e => { console.error(e.code); process.exit(3) })"`;
      const result = await inBwrap(script);
      expect(result.stderr).toMatch(/ENOENT/);
      expect(result).toMatchObject({ exitCode: 3, stdout: '' });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      daemon.close();
    }
  });
});

describe('asked for and unavailable: one clear error, never a fallback', () => {
  it('bwrap not installed: the probe and requireSandbox say so and how to install it', async () => {
    const env = { ...process.env, PATH: '/nonexistent' };
    expect(await probeSandbox('bwrap', env)).toMatchObject({
      available: false,
      detail: 'bwrap (bubblewrap) is not installed (not found on PATH)',
    });
    await expect(requireSandbox('bwrap', env)).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      hint: expect.stringContaining('apt-get install bubblewrap'),
    });
  });

  it('user namespaces refused: the probe names the cause and how to enable them', async () => {
    const bin = await tempDir('neo-fake-bwrap-');
    await writeFile(
      join(bin, 'bwrap'),
      '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
    );
    await chmod(join(bin, 'bwrap'), 0o755);
    const found = await probeSandbox('bwrap', { ...process.env, PATH: `${bin}:${process.env.PATH}` });
    expect(found).toMatchObject({ available: false, version: 'bubblewrap 0.8.0' });
    expect(found.detail).toMatch(/cannot create a sandbox here: bwrap: No permissions to create new namespace/);
    expect(found.hint).toMatch(/unprivileged_userns_clone/);
  });

  it("a command bwrap could not set up is a spawn error naming the sandbox, not the command's exit", async () => {
    const result = await sandboxOf('bwrap').run(['/bin/true'], {
      cwd: '/',
      binds: [{ path: join(base, 'missing') }],
      hide: [],
      network: false,
      env: process.env,
    });
    expect(result.failed).toBe(true);
    expect(result.spawnError).toMatch(/^the sandbox could not set the command up: bwrap: /);
  });
});

/** Pids of live processes whose environment holds BOMB=<mark>. */
function processesMarked(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) continue;
      if (readFileSync(`/proc/${name}/environ`, 'utf8').includes(`BOMB=${mark}`)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe("a Python install shown read-only (a lent virtualenv's base)", () => {
  it('lent from the hidden home: its own settings hidden; one the host shows anyway: left whole', async () => {
    const prefixes = { hidden: join(home, 'conda'), host: join(base, 'python-prefix') };
    for (const prefix of Object.values(prefixes)) {
      await mkdir(join(prefix, 'lib', 'python3.9'), { recursive: true });
      await mkdir(join(prefix, 'etc'), { recursive: true });
      await writeFile(join(prefix, 'lib', 'python3.9', 'os.py'), '# stdlib\n');
      await writeFile(join(prefix, 'etc', 'settings'), 'from etc\n');
    }
    const read = (prefix: string) =>
      inBwrap(`cat ${join(prefix, 'lib', 'python3.9', 'os.py')} ${join(prefix, 'etc', 'settings')} 2>/dev/null; true`, {
        readable: [prefix],
      });
    expect((await read(prefixes.hidden)).stdout).toBe('# stdlib\n');
    // `/usr/local/etc` hidden under a venv made from /usr/local/bin/python3 would break what reads it.
    expect((await read(prefixes.host)).stdout).toBe('# stdlib\nfrom etc\n');
  });
});
