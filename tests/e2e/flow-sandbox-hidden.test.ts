/**
 * What a sandbox hides stays hidden, through the neo binary under bwrap: an agent CLI installed
 * under the home (`npm install` in the home folder) shows its own `node_modules`, not the home
 * with `~/.ssh` and NEO_HOME; and neo's own session daemon, whose socket falls back outside a
 * long NEO_HOME, cannot be found or reached from a network-off run step wherever TMPDIR points.
 */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_BINARIES } from '../contract/fake-backends.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

async function repoIn(root: string, files: Record<string, string>): Promise<string> {
  const repo = join(root, 'repo');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return repo;
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; exitCode: number; workspace: { path: string } };

describe('an agent CLI installed under the home', () => {
  it('runs in bwrap seeing its node_modules, never ~/.ssh nor NEO_HOME', async () => {
    const root = await tempDir('neo-e2e-hidden-');
    const userHome = join(root, 'user');
    const home = join(userHome, '.neo');
    const pkg = join(userHome, 'node_modules', 'fake-droid');
    await writeTree(userHome, { '.ssh/id_rsa': 'PRIVATE KEY\n' });
    await mkdir(pkg, { recursive: true });
    await mkdir(join(userHome, 'node_modules', '.bin'));
    // The CLI looks around before it speaks ACP: what it finds lands in the workspace.
    await writeFile(
      join(pkg, 'droid.sh'),
      // The user's own home by its path (the CLI's HOME is a throwaway one of its session), and the
      // fake's settings written here: an agent CLI gets an allowlisted environment, not the test's.
      `#!/bin/sh\n{ cat "${userHome}/.ssh/id_rsa"; echo "neo-home:"; ls -A "${home}"; } > probe.txt 2>&1\nexport FAKE_ACP_MODES=normal,spec,auto-low,auto-medium,auto-high FAKE_CLI_HOME=/tmp/fake-droid-state\nexec node ${FAKE_BINARIES.acp} "$@"\n`,
    );
    await chmod(join(pkg, 'droid.sh'), 0o755);
    await symlink('../fake-droid/droid.sh', join(userHome, 'node_modules', '.bin', 'droid'));
    const repo = await repoIn(root, {
      'plan.yaml':
        'name: probe\ndefaults: { backend: droid, maxPosture: acceptEdits, maxRounds: 2 }\nsandbox: bwrap\nsteps:\n  - id: work\n    brief: Write hello.txt.\n    requireChange: false\n',
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        HOME: userHome,
        NEO_DROID_BIN: join(userHome, 'node_modules', '.bin', 'droid'),
        FACTORY_API_KEY: 'fk-test',
      },
    });
    const out = summary(result.stdout);
    expect(out, result.stdout + result.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const probe = await readFile(join(out.workspace.path, 'probe.txt'), 'utf8');
    expect(probe).not.toContain('PRIVATE KEY');
    expect(probe).toMatch(/id_rsa: No such file/);
    // NEO_HOME shows only the folders leading to what is bound inside it: the workspace and the
    // session's own throwaway home.
    expect(probe).toMatch(/neo-home:\ncode-sessions\nworktrees\n$/);
  });
});

describe("neo's session daemon is out of a sandbox's reach", () => {
  let stopDaemon: (() => Promise<unknown>) | undefined;
  let tmp: string | undefined;
  afterEach(async () => {
    await stopDaemon?.();
    stopDaemon = undefined;
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('with a long NEO_HOME and TMPDIR elsewhere, a network-off run step finds no socket to start a full-posture session through', async () => {
    const root = await tempDir('neo-e2e-daemon-');
    const home = join(root, 'a-neo-home-whose-path-is-far-too-long-for-a-unix-socket-'.padEnd(110, 'x'));
    // TMPDIR outside /tmp (which every sandbox replaces with its own).
    tmp = await realpath(await mkdtemp('/var/tmp/neo-e2e-tmpdir-'));
    const script = join(root, 'idle.yaml');
    await writeFile(script, 'turns:\n  - - say: idle\n');
    // The attacker's step: look where neo's sockets go, connect, ask for a session at full posture.
    const attack = `
const fs = require('fs'), net = require('net'), path = require('path');
const found = [];
for (const base of [${JSON.stringify(tmp)}, '/tmp', '/run/user/' + process.getuid()])
  for (const dir of (() => { try { return fs.readdirSync(base); } catch { return []; } })())
    if (dir.startsWith('neo-'))
      for (const f of (() => { try { return fs.readdirSync(path.join(base, dir)); } catch { return []; } })())
        if (f.endsWith('.sock')) found.push(path.join(base, dir, f));
if (found.length === 0) { console.log('no socket found'); process.exit(0); }
for (const sock of found) {
  const c = net.connect(sock);
  c.on('error', (e) => console.log('connect failed: ' + e.code));
  c.on('connect', () => c.write(JSON.stringify({ id: 1, kind: 'execute', scope: 'attacker', cwd: process.cwd(),
    input: { op: 'start', brief: 'pwn', backend: 'script', maxPosture: 'full', initialPosture: 'full',
      backendOptions: { script: ${JSON.stringify(script)} } } }) + '\\n'));
  c.on('data', (d) => { console.log('daemon said: ' + d); c.destroy(); });
}
`;
    const repo = await repoIn(root, {
      'attack.cjs': attack,
      'plan.yaml': "name: attack\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'node attack.cjs' }\n",
    });
    const env = { NEO_HOME: home, TMPDIR: tmp, NEO_SESSION_DAEMON_IDLE_MS: '60000' };
    const neo = (args: string[]) => runNeo(args, { cwd: repo, env });
    stopDaemon = () => neo(['session', 'daemon', '--stop']);
    const started = await neo([
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'x',
      '--json',
    ]);
    expect(started.exitCode, started.stderr).toBe(0);
    const result = await neo(['flow', 'run', 'plan.yaml', '--json']);
    expect(summary(result.stdout), result.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(result.stdout).toContain('no socket found');
    expect(result.stdout).not.toContain('daemon said');
    const list = await neo(['sessions', 'list', '--json']);
    expect(list.stdout).not.toContain('pwn');
  });
});

describe('a descriptor neo inherited', () => {
  it('reaches a confined step as /dev/null: it cannot write through it, nor through /proc/self/fd', async () => {
    const root = await tempDir('neo-e2e-fd-');
    const outside = join(root, 'outside.log');
    await writeFile(outside, '');
    const repo = await repoIn(root, {
      'plan.yaml':
        "name: fd\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'for f in /proc/self/fd/*; do readlink $f; done; echo pwned > /proc/self/fd/30; true' }\n",
    });
    const home = join(root, 'neo-home');
    watchFolder(home);
    // neo started with fd 30 open on a file outside the sandbox's reach (a log, a CI runner's pipe).
    const result = await execa(
      '/bin/bash',
      ['-c', 'exec 30>>"$OUT"; exec "$0" "$@"', process.execPath, NEO_BIN, 'flow', 'run', 'plan.yaml', '--json'],
      {
        cwd: repo,
        env: { NO_COLOR: '1', NEO_HOME: home, OUT: outside },
        reject: false,
      },
    );
    const out = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
      status: string;
      steps: Array<{ outputs: { stdout: string } }>;
    };
    expect(out.status, result.stdout).toBe('succeeded');
    expect(await readFile(outside, 'utf8')).toBe('');
    // Its inherited descriptors lead nowhere (/dev/null at their numbers): not to the file, nor to a pipe.
    expect(out.steps[0]!.outputs.stdout).toContain('/dev/null');
    expect(out.steps[0]!.outputs.stdout).not.toMatch(/outside\.log|pipe:/);
  });
});
