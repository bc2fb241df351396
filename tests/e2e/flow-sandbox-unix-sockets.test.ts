/**
 * A confined step with the network shares the host's network namespace, and with it the host's
 * abstract unix sockets (an X server, a container shim): names no hidden folder hides. In bwrap a
 * networked command cannot create a unix socket at all (seccomp), while TCP still works and the
 * pipes between a tool and its children still work; an offline one has a namespace of its own,
 * where a project's tests may listen on unix sockets as they like.
 */
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const ABSTRACT = `neo-e2e-abstract-${process.pid}`;
let abstract: Server;
let tcp: Server;
let port: number;
beforeAll(async () => {
  abstract = createServer((socket) => socket.end('host door\n'));
  await new Promise<void>((resolve) => abstract.listen(`\0${ABSTRACT}`, resolve));
  tcp = createServer((socket) => socket.end('tcp ok\n'));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  port = (tcp.address() as { port: number }).port;
});
afterAll(() => {
  abstract.close();
  tcp.close();
});

// Prints what each connection got, or its error code.
const PROBE = `const net = require('net');
const { spawnSync } = require('child_process');
const reach = (what, ...args) => new Promise((done) => {
  net.connect(...args).on('data', (d) => { console.log(what, String(d).trim()); done(); })
    .on('error', (e) => { console.log(what, e.code); done(); });
});
(async () => {
  await reach('abstract', '\\0' + process.env.ABSTRACT);
  await reach('tcp', Number(process.env.PORT), '127.0.0.1');
  console.log('pipe', String(spawnSync('sh', ['-c', 'echo through a pipe']).stdout).trim());
  const own = net.createServer((s) => s.end('own ok')).on('error', (e) => { console.log('own', e.code); });
  own.listen('/tmp/own.sock', () => reach('own', '/tmp/own.sock').then(() => own.close()));
})();
`;

describe('unix sockets in a confined step', () => {
  it("with the network on: no unix socket (the host's abstract ones out of reach), TCP and pipes work; offline: its own sockets work, the host's are not there", async () => {
    const root = await tempDir('neo-e2e-unix-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      'probe.cjs': PROBE,
      'plan.yaml': `name: sockets\nsandbox: bwrap\nsecrets: [ABSTRACT, PORT]\nsteps:\n  - { id: online, network: true, run: 'node probe.cjs' }\n  - { id: offline, needs: [online], run: 'node probe.cjs' }\n`,
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, ABSTRACT, PORT: String(port) },
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      steps: Array<{ id: string; outputs?: { stdout?: string } }>;
    };
    const steps = summary.steps;
    const lines = (id: string) =>
      steps
        .find((s) => s.id === id)
        ?.outputs?.stdout?.trim()
        .split('\n');
    expect(lines('online')).toEqual(['abstract EPERM', 'tcp tcp ok', 'pipe through a pipe', 'own EPERM']);
    expect(lines('offline')).toEqual([
      'abstract ECONNREFUSED',
      'tcp ECONNREFUSED',
      'pipe through a pipe',
      'own own ok',
    ]);
  });
});
