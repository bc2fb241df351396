/**
 * Escape attempts, run for real in bwrap (CI installs bubblewrap through .ci/run): each is
 * refused and reported, and each has its control (the same act allowed), so none can pass by
 * not trying.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  confinedSpec,
  probeSandbox,
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
let server: Server;
let port: number;

beforeAll(async () => {
  base = await realpath(await mkdtemp('/var/tmp/neo-sandbox-'));
  ws = join(base, 'ws');
  checkout = join(base, 'checkout');
  home = join(base, 'home');
  neoHome = join(base, 'neo-home');
  runDir = join(neoHome, 'runs', 'r1');
  for (const dir of [ws, checkout, home, runDir]) await mkdir(dir, { recursive: true });
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
  runDir,
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
  it('the workspace and the run folder are writable (the control)', async () => {
    const result = await inBwrap(`echo made > made.txt && echo out > ${runDir}/out.env`);
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(join(runDir, 'out.env'), 'utf8')).toBe('out\n');
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

  it("NEO_HOME is hidden but for the run's own folder", async () => {
    const result = await inBwrap(`cat "$NEO_HOME/secret"; echo evil > "$NEO_HOME/planted"; ls "$NEO_HOME/runs"`);
    expect(result.stderr).toMatch(/secret: No such file/);
    expect(result.stdout).toBe('r1\n');
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
