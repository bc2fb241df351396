/**
 * One confinement for every command a flow runs, through the neo binary: the environment of a
 * confined process is an allowlist (declared secrets by name), run steps and gates have a default
 * timeout and a process bound, sub-flows inherit their parent step's sandbox, and `--dry-run`
 * says what will really happen, sub-flow steps included.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { FAKE_BINARIES, fakeWithEnv } from '../contract/fake-backends.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => void server.close());

/** Secrets a user's shell commonly holds: none may reach a confined process unasked. */
const LEAKED = {
  ANTHROPIC_API_KEY: 'sk-ant-leak',
  GITHUB_TOKEN: 'ghp_leak',
  NPM_TOKEN: 'npm_leak',
  DATABASE_URL: 'postgres://leak',
};

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-procs-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const userHome = join(root, 'user');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await writeTree(userHome, { secret: 'user secret\n' });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, HOME: userHome, ...LEAKED };
  const neo = (args: string[], extra: Record<string, string> = {}) =>
    runNeo(args, { cwd: repo, env: { ...env, ...extra } });
  return { repo, home, userHome, neo };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

/** Pids of live processes whose command line holds `marker` (a unique sleep length). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (state !== 'Z' && cmdline.split('\0').includes(marker)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Exits 1 naming every leaked variable it sees, and when the declared one is missing; prints
 * names only, never values.
 */
const PROBE = `bad=0
for v in ANTHROPIC_API_KEY GITHUB_TOKEN NPM_TOKEN DATABASE_URL; do
  if [ -n "$(printenv "$v")" ]; then echo "leaked:$v"; bad=1; fi
done
if [ -n "$WANT" ]; then
  if [ "$(printenv "$WANT")" = "$EXPECT" ]; then echo "declared:$WANT"; else echo "missing:$WANT"; bad=1; fi
fi
echo "where:$1"
exit $bad
`;

describe('the environment of a confined process is an allowlist', () => {
  it("neo's secrets reach no run step, gate, loop check or network-on step in bwrap; a declared secret does", async () => {
    const steps = (secrets: string) =>
      `steps:\n` +
      `  - { id: plain, run: 'sh probe.sh plain'${secrets} }\n` +
      `  - { id: net, network: true, run: 'sh probe.sh net'${secrets} }\n` +
      `  - id: until\n    run: 'true'\n    loop: { untilRun: 'sh probe.sh until', maxIterations: 1 }\n${secrets === '' ? '' : `    secrets: [DEPLOY_TOKEN]\n`}` +
      `  - id: fix\n    brief: write a note\n    script: writes.yaml\n    verify: 'sh probe.sh gate'\n${secrets === '' ? '' : `    secrets: [DEPLOY_TOKEN]\n`}`;
    const { neo } = await project({
      'probe.sh': PROBE,
      'writes.yaml': 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n',
      'plain.flow.yaml': `name: plain\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\n${steps('')}`,
      'declared.flow.yaml': `name: declared\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nenv: { WANT: DEPLOY_TOKEN, EXPECT: deploy-value }\n${steps(', secrets: [DEPLOY_TOKEN]')}`,
      'flowwide.flow.yaml': `name: flowwide\nsandbox: bwrap\nsecrets: [DEPLOY_TOKEN]\nenv: { WANT: DEPLOY_TOKEN, EXPECT: deploy-value }\nsteps:\n  - { id: a, run: 'sh probe.sh flowwide' }\n`,
    });
    const plain = await neo(['flow', 'run', 'plain.flow.yaml', '--json'], { DEPLOY_TOKEN: 'deploy-value' });
    expect(plain.stdout).not.toMatch(/leaked:/);
    expect(summary(plain.stdout), plain.stdout + plain.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    // The loop check's output is not kept: its passing (the run succeeding) says it saw no leak.
    for (const where of ['plain', 'net', 'gate']) expect(plain.stdout).toMatch(`where:${where}`);

    const declared = await neo(['flow', 'run', 'declared.flow.yaml', '--json'], { DEPLOY_TOKEN: 'deploy-value' });
    expect(declared.stdout).not.toMatch(/leaked:|missing:/);
    expect(summary(declared.stdout), declared.stdout + declared.stderr).toMatchObject({ status: 'succeeded' });
    expect(declared.stdout.match(/declared:DEPLOY_TOKEN/g)?.length).toBeGreaterThanOrEqual(4);

    const flowwide = await neo(['flow', 'run', 'flowwide.flow.yaml', '--json'], { DEPLOY_TOKEN: 'deploy-value' });
    expect(summary(flowwide.stdout), flowwide.stdout + flowwide.stderr).toMatchObject({ status: 'succeeded' });
    expect(flowwide.stdout).toMatch(/declared:DEPLOY_TOKEN/);
  });

  it('a declared secret a step prints is redacted everywhere, whatever its name says', async () => {
    const value = 'innocuous-looking-credential-4711';
    const { home, neo } = await project({
      'show.flow.yaml': `name: show\nsandbox: bwrap\nsecrets: [SERVICE_LOGIN]\nsteps:\n  - { id: a, run: 'echo "login is $SERVICE_LOGIN"; exit 1' }\n`,
    });
    const run = await neo(['flow', 'run', 'show.flow.yaml', '--json'], { SERVICE_LOGIN: value });
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(run.stdout).toContain('[redacted ${SERVICE_LOGIN}]');
    const runId = (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { runId: string }).runId;
    const shown = await neo(['flow', 'show', runId, '--events', '--json']);
    const logs = await neo(['flow', 'logs', runId]);
    const store = readdirSync(join(home, 'runs', runId)).map((f) => readFileSync(join(home, 'runs', runId, f), 'utf8'));
    for (const text of [run.stdout, run.stderr, shown.stdout, logs.stdout, ...store]) expect(text).not.toContain(value);
  });

  it("`sandbox: none` is the user's own command: it runs with neo's whole environment", async () => {
    const { neo } = await project({
      'probe.sh': PROBE,
      'open.flow.yaml': `name: open\nsandbox: none\nsteps:\n  - { id: a, run: 'sh probe.sh open' }\n`,
    });
    const open = await neo(['flow', 'run', 'open.flow.yaml', '--json']);
    expect(summary(open.stdout)).toMatchObject({ cause: 'FLOW_COMMAND_FAILED', exitCode: 1 });
    expect(open.stdout).toMatch(
      /leaked:ANTHROPIC_API_KEY.*leaked:GITHUB_TOKEN.*leaked:NPM_TOKEN.*leaked:DATABASE_URL/s,
    );
  });

  it("an agent step's loop check is a command: off the network unless the step says so (its CLI's network is not its own)", async () => {
    const CONNECT = `require('net').connect(Number(process.env.NEO_INPUT_PORT), '127.0.0.1').on('data', () => process.exit(0)).on('error', () => process.exit(3));\n`;
    const flow = (name: string, network: string) =>
      `name: ${name}\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\ninputs: { port: { type: string } }\nsteps:\n  - id: fix\n    brief: write a note\n    script: writes.yaml\n${network}    loop: { untilRun: 'node connect.cjs', maxIterations: 1 }\n`;
    const { neo } = await project({
      'connect.cjs': CONNECT,
      'writes.yaml': 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n',
      'offline.flow.yaml': flow('offline', ''),
      'online.flow.yaml': flow('online', '    network: true\n'),
    });
    const input = ['--input', `port=${port}`];
    const offline = await neo(['flow', 'run', 'offline.flow.yaml', '--json', ...input]);
    expect(summary(offline.stdout), offline.stdout + offline.stderr).toMatchObject({
      cause: 'FLOW_LOOP_EXHAUSTED',
      exitCode: 1,
    });
    const online = await neo(['flow', 'run', 'online.flow.yaml', '--json', ...input]);
    expect(summary(online.stdout), online.stdout + online.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const dry = await neo(['flow', 'run', 'offline.flow.yaml', '--dry-run', ...input]);
    expect(dry.stdout).toMatch(/loop check in bwrap \(flow\)/);
  });

  it('a declared secret that is unset refuses the run before anything runs (exit 2)', async () => {
    const { home, neo } = await project({
      'unset.flow.yaml': `name: unset\nsandbox: bwrap\nsteps:\n  - { id: touch, run: 'echo ran > ran.txt' }\n  - { id: deploy, needs: [touch], run: 'true', secrets: [DEPLOY_TOKEN] }\n`,
    });
    const result = await neo(['flow', 'run', 'unset.flow.yaml']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/FLOW_SECRET_UNSET/);
    expect(result.stderr).toMatch(/step deploy declares secret `DEPLOY_TOKEN`, which is not set/);
    expect(existsSync(join(home, 'runs'))).toBe(false);
    const dry = await neo(['flow', 'run', 'unset.flow.yaml', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/warning: a real run would refuse to start: .*DEPLOY_TOKEN/);
  });
});

describe('run steps and gates have a default timeout and a process bound', () => {
  it('a flood of background processes ends with FLOW_STEP_PROCESS_LIMIT under the default cap, nothing left, and neo still spawns', async () => {
    const marker = '61.25';
    const { neo } = await project({
      'flood.flow.yaml':
        `name: flood\nsandbox: bwrap\nsteps:\n` +
        `  - id: flood\n    timeout: 40s\n    run: 'i=0; while [ $i -lt 2000 ]; do sleep ${marker} & i=$((i+1)); done; wait'\n` +
        `finally:\n  - { id: after, run: 'echo neo-still-spawns' }\n`,
    });
    const result = await neo(['flow', 'run', 'flood.flow.yaml', '--json']);
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
      status: 'failed',
      cause: 'FLOW_STEP_PROCESS_LIMIT',
      exitCode: 1,
    });
    expect(result.stdout).toMatch(/hit its limit of 1024 processes/);
    expect(result.stdout).toMatch(/neo-still-spawns/);
    expect(processesWith(marker)).toEqual([]);
  });

  it('a fork bomb in a run step and in a gate ends at its `maxProcesses`, exit 1, nothing left', async () => {
    const bomb = 'bomb() { bomb | bomb & }; bomb; sleep 62.5';
    const { neo } = await project({
      'bomb.flow.yaml': `name: bomb\nsandbox: bwrap\nsteps:\n  - id: bomb\n    timeout: 60s\n    maxProcesses: 64\n    run: '${bomb}'\n`,
      'gate.flow.yaml': `name: gate\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nsteps:\n  - id: fix\n    brief: write a note\n    script: writes.yaml\n    maxProcesses: 64\n    verify: { run: '${bomb}', timeout: 60s }\n`,
      'writes.yaml': 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n',
    });
    const run = await neo(['flow', 'run', 'bomb.flow.yaml', '--json']);
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({
      cause: 'FLOW_STEP_PROCESS_LIMIT',
      exitCode: 1,
    });
    expect(processesWith('62.5')).toEqual([]);
    const gate = await neo(['flow', 'run', 'gate.flow.yaml', '--json']);
    expect(summary(gate.stdout), gate.stdout + gate.stderr).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    expect(gate.stdout).toMatch(/hit its limit of 64 processes/);
    expect(processesWith('62.5')).toEqual([]);
  });

  it('a step ends with everything it started: a setsid daemon, a double fork, a cleared environment', async () => {
    const daemons = (tag: string) =>
      `env -i setsid sleep 63.${tag}1 </dev/null >/dev/null 2>&1 & (sleep 63.${tag}2 </dev/null >/dev/null 2>&1 &) ; cd / && setsid sh -c "exec sleep 63.${tag}3" </dev/null >/dev/null 2>&1 &`;
    const { neo } = await project({
      'open.flow.yaml': `name: open\nsandbox: none\nsteps:\n  - { id: a, run: '${daemons('1')}' }\n  - { id: b, timeout: 2s, run: '${daemons('2')} sleep 64' }\n`,
      'boxed.flow.yaml': `name: boxed\nsandbox: bwrap\nsteps:\n  - { id: a, run: '${daemons('3')}' }\n  - { id: b, timeout: 2s, run: '${daemons('4')} sleep 64' }\n`,
    });
    for (const [file, tags] of [
      ['open.flow.yaml', ['1', '2']],
      ['boxed.flow.yaml', ['3', '4']],
    ] as const) {
      const result = await neo(['flow', 'run', file, '--json']);
      expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
        cause: 'FLOW_STEP_TIMEOUT',
        exitCode: 1,
      });
      for (const tag of tags)
        for (const n of ['1', '2', '3']) expect(processesWith(`63.${tag}${n}`), `${file} 63.${tag}${n}`).toEqual([]);
    }
  });

  it('--dry-run --json shows the default timeout and process bound of run steps and gates; neo doctor says which bound applies', async () => {
    const { neo } = await project({
      'plan.flow.yaml': `name: plan\ndefaults: { backend: script }\nsteps:\n  - { id: build, run: make }\n  - { id: quick, run: make, timeout: 5m, maxProcesses: 200 }\n  - id: fix\n    brief: fix it\n    verify: npm test\n`,
    });
    const dry = await neo(['flow', 'run', 'plan.flow.yaml', '--dry-run', '--json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const described = JSON.parse(dry.stdout) as {
      processBound: string;
      steps: Array<Record<string, unknown>>;
    };
    expect(described.processBound).toMatch(/^cgroup pids/);
    expect(described.steps[0]).toMatchObject({ id: 'build', timeout: '30m', maxProcesses: 1024 });
    expect(described.steps[1]).toMatchObject({ id: 'quick', timeout: '5m', maxProcesses: 200 });
    expect(described.steps[2]).toMatchObject({ id: 'fix', gateTimeout: '30m', gateMaxProcesses: 1024 });
    const text = await neo(['flow', 'run', 'plan.flow.yaml', '--dry-run']);
    expect(text.stdout).toMatch(/build +run .* make · timeout 30m · ≤1024 processes/);
    const doctor = await neo(['doctor']);
    expect(doctor.stdout).toMatch(/process bound: cgroup pids/);
  });
});

describe('--watch never reads back what a sandboxed step wrote', () => {
  it('in inplace isolation a sandboxed plan refuses --watch: a step could rewrite the plan to lower its own sandbox', async () => {
    const { repo, home, neo } = await project({
      'plan.flow.yaml':
        `name: lower\nsandbox: bwrap\nworkspace: { isolation: inplace }\nsteps:\n` +
        `  - id: a\n    run: |\n      sed -i 's/^sandbox: bwrap/sandbox: none/; s/echo second/cat "$HOME\\/secret"/' plan.flow.yaml && sleep 2\n` +
        `  - { id: b, needs: [a], run: echo second }\n`,
    });
    const result = await neo(['flow', 'run', 'plan.flow.yaml', '--watch', '--json']);
    expect(result.stdout).not.toMatch(/user secret/);
    expect(result.exitCode, result.stdout + result.stderr).toBe(2);
    expect(result.stdout).toMatch(/FLOW_WATCH_UNSAFE/);
    expect(existsSync(join(home, 'runs'))).toBe(false);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    // Without --watch the same run is fine: the plan it runs is the one it read at the start.
    const once = await neo(['flow', 'run', 'plan.flow.yaml', '--json']);
    expect(summary(once.stdout), once.stdout + once.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(once.stdout).not.toMatch(/user secret/);
  });
});

describe("sub-flows inherit their parent step's sandbox", () => {
  const CHILD_PROBE = `if cat "$HOME/secret"; then echo READ-HOME; fi
echo evil > "$NEO_INPUT_CHECKOUT/README.md"
echo "pid1:$(cat /proc/1/comm)"
`;
  const parent = (name: string, sandbox: string) =>
    `name: ${name}\n${sandbox}inputs: { checkout: { type: string } }\nsteps:\n  - id: sub\n    flow: child.flow.yaml\n    inputs: { checkout: "\${{ inputs.checkout }}" }\n`;

  it('a sub-flow step under a bwrap parent cannot read the home or write the checkout', async () => {
    const { repo, neo } = await project({
      'probe.sh': CHILD_PROBE,
      'child.flow.yaml': `name: child\ninputs: { checkout: { type: string } }\nsteps:\n  - { id: probe, run: 'sh probe.sh' }\n`,
      'parent.flow.yaml': parent('parent', 'sandbox: bwrap\n'),
    });
    const result = await neo(['flow', 'run', 'parent.flow.yaml', '--json', '--input', `checkout=${repo}`]);
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(result.stdout).not.toMatch(/READ-HOME|user secret/);
    expect(result.stdout).toMatch(/pid1:bwrap/);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
  });

  it('a sub-flow that says `sandbox: none` under a bwrap parent is refused before anything runs (exit 2)', async () => {
    const { repo, home, neo } = await project({
      'child.flow.yaml': `name: child\nsandbox: none\nsteps:\n  - { id: escape, run: 'echo evil > README.md' }\n`,
      'parent.flow.yaml': `name: parent\nsandbox: bwrap\nsteps:\n  - { id: first, run: 'echo ran > ran.txt' }\n  - { id: sub, needs: [first], flow: child.flow.yaml }\n`,
    });
    const result = await neo(['flow', 'run', 'parent.flow.yaml']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/FLOW_SANDBOX_REQUIRED/);
    expect(result.stderr).toMatch(
      /sub-flow step `sub`.*step `escape`.*`sandbox: none`.*parent step `sub` runs in bwrap/s,
    );
    expect(existsSync(join(home, 'runs'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
  });

  it("--dry-run's claims for sub-flow steps are what the real run does", async () => {
    const PROBE2 = `echo "pid1:$1:$(cat /proc/1/comm)"
if node -e "require('net').connect(Number(process.env.NEO_INPUT_PORT), '127.0.0.1').on('data', () => process.exit(0)).on('error', () => process.exit(3))"; then echo "net:$1:on"; else echo "net:$1:off"; fi
`;
    const { neo } = await project({
      'probe.sh': PROBE2,
      'child.flow.yaml': `name: child\ninputs: { port: { type: string } }\nsteps:\n  - { id: offline, run: 'sh probe.sh offline' }\n  - { id: online, network: true, run: 'sh probe.sh online' }\n`,
      'parent.flow.yaml': `name: parent\nsandbox: bwrap\ninputs: { port: { type: string } }\nsteps:\n  - id: sub\n    flow: child.flow.yaml\n    inputs: { port: "\${{ inputs.port }}" }\n  - id: open\n    sandbox: none\n    flow: child.flow.yaml\n    inputs: { port: "\${{ inputs.port }}" }\n`,
    });
    const input = ['--input', `port=${port}`];
    const dry = await neo(['flow', 'run', 'parent.flow.yaml', '--dry-run', '--json', ...input]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    type Row = { id: string; sandbox?: string; subflow?: { name: string; steps: Row[] } };
    const rows = (JSON.parse(dry.stdout) as { steps: Row[] }).steps;
    const claims = new Map<string, string>();
    for (const row of rows)
      for (const child of row.subflow?.steps ?? []) claims.set(`${row.id}/${child.id}`, child.sandbox!);
    expect([...claims.keys()]).toEqual(['sub/offline', 'sub/online', 'open/offline', 'open/online']);

    const real = await neo(['flow', 'run', 'parent.flow.yaml', '--json', ...input]);
    expect(summary(real.stdout), real.stdout + real.stderr).toMatchObject({ status: 'succeeded' });
    // What each sub-flow step really did, from its own run's events (`<parent>.<step>.1-1`).
    const seen = new Map<string, { confined: boolean; network: boolean }>();
    for (const line of real.stdout.trim().split('\n')) {
      const item = JSON.parse(line) as {
        runId?: string;
        depth?: number;
        event?: { type: string; step: string; outputs?: { stdout?: string } };
      };
      if (item.depth !== 1 || item.event?.type !== 'step.completed') continue;
      const parentStep = /\.(\w+)\.1-1$/.exec(item.runId!)![1]!;
      const out = item.event.outputs?.stdout ?? '';
      seen.set(`${parentStep}/${item.event.step}`, {
        confined: /pid1:\w+:bwrap/.test(out),
        network: /net:\w+:on/.test(out),
      });
    }
    expect([...seen.keys()].sort()).toEqual([...claims.keys()].sort());
    for (const [key, claim] of claims) {
      const confined = claim.startsWith('bwrap');
      expect(seen.get(key), `${key}: ${claim}`).toEqual({ confined, network: !confined || claim.includes('+net') });
    }
    expect(claims.get('sub/offline')).toMatch(/^bwrap \(parent step sub/);
    expect(claims.get('open/offline')).toMatch(/^none/);
  });
});

/** Whether this test process can run neo as an ordinary user (`nobody`), as CI's root can. */
function canDropToNobody(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(canDropToNobody())('an ordinary user, who may not make a cgroup, is bounded by RLIMIT_NPROC', () => {
  it('neo doctor says so, and a flood in bwrap stops at the cap with nothing left', async () => {
    const root = await tempDir('neo-e2e-procs-nobody-');
    chmodSync(root, 0o777);
    const marker = '94.5';
    await writeTree(root, {
      'flood.flow.yaml': `name: flood\nsandbox: bwrap\nsteps:\n  - id: flood\n    timeout: 20s\n    maxProcesses: 64\n    run: 'i=0; while [ $i -lt 300 ]; do sleep ${marker} & i=$((i+1)); done; wait'\n`,
    });
    chmodSync(join(root, 'flood.flow.yaml'), 0o644);
    const home = join(root, 'home');
    watchFolder(home);
    const asNobody = (args: string[]) =>
      execa('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, NEO_BIN, ...args], {
        cwd: root,
        env: { NO_COLOR: '1', NEO_HOME: home, HOME: root, PATH: process.env.PATH ?? '/usr/bin:/bin' },
        reject: false,
        timeout: 60_000,
      });
    const doctor = await asNobody(['doctor']);
    expect(doctor.stdout).toMatch(/process bound: RLIMIT_NPROC via prlimit/);
    const result = await asNobody(['flow', 'run', 'flood.flow.yaml', '--isolation', 'copy', '--json']);
    // The shell's fork was refused by the cap (the rlimit cannot tell neo it was the cause).
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(result.stdout).toMatch(/Cannot fork/);
    expect(processesWith(marker)).toEqual([]);
  });
});

describe("an agent CLI and what it starts have the step's process bound", () => {
  it('a CLI whose processes flood past `maxProcesses` is killed, the step fails saying so, nothing is left', async () => {
    const marker = '65.75';
    const { home, neo } = await project({
      'plan.yaml': `name: flood\ndefaults: { backend: claude-code, maxPosture: acceptEdits, maxRounds: 1 }\nsandbox: bwrap\nsteps:\n  - id: work\n    brief: Write hello.txt.\n    maxProcesses: 64\n`,
    });
    const bin = fakeWithEnv(
      FAKE_BINARIES['claude-code'],
      { FAKE_CLI_BEHAVIOUR: 'flood', FAKE_CLI_FLOOD_MARK: marker, FAKE_CLI_HOME: join(home, 'fake-state') },
      await tempDir('neo-fake-bin-'),
    );
    const result = await neo(['flow', 'run', 'plan.yaml', '--json'], {
      NEO_CLAUDE_CODE_BIN: bin,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    });
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'failed' });
    expect(result.stdout).toMatch(/hit its limit of 64 processes/);
    expect(processesWith(marker)).toEqual([]);
  });
});
