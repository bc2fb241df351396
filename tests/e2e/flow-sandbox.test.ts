/**
 * `sandbox:` and `network:` through the neo binary: run steps and gates confined for real in
 * bwrap, `--dry-run` and `neo doctor` saying where each runs, an owner policy that requires the
 * sandbox, and a run that refuses to start where bwrap is missing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => void server.close());

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-sandbox-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const userHome = join(root, 'user');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await writeTree(userHome, { secret: 'user secret\n' });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, HOME: userHome, CHECKOUT: repo, PORT: String(port) };
  const neo = (args: string[], extra: Record<string, string> = {}) =>
    runNeo(args, { cwd: repo, env: { ...env, ...extra } });
  return { repo, home, userHome, neo };
}

const CONNECT = 'node connect.cjs';
const CONNECT_JS = `require('net').connect(Number(process.env.PORT), '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.error(e.code); process.exit(3); });\n`;
const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

describe('run steps and gates in bwrap', () => {
  it('a run step writes its workspace and $NEO_OUTPUT, never the checkout; off the network unless it says so', async () => {
    const { repo, neo } = await project({
      'connect.cjs': CONNECT_JS,
      // A sandboxed command keeps only the variables it names (`secrets:`) of neo's environment.
      'ok.flow.yaml': `name: ok\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'echo made > made.txt && echo answer=42 >> "$NEO_OUTPUT"' }\n  - { id: net, needs: [a], network: true, secrets: [PORT], run: '${CONNECT}' }\n`,
      'escape.flow.yaml': `name: escape\nsandbox: bwrap\nsecrets: [CHECKOUT]\nsteps:\n  - { id: a, run: 'echo evil > "$CHECKOUT/README.md"' }\n`,
      'offline.flow.yaml': `name: offline\nsandbox: bwrap\nsecrets: [PORT]\nsteps:\n  - { id: a, run: '${CONNECT}' }\n`,
    });
    const ok = await neo(['flow', 'run', 'ok.flow.yaml', '--json']);
    expect(summary(ok.stdout), ok.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    // The checkout lies in the host's /tmp, which the sandbox replaces with its own: the write
    // lands in a throwaway folder (a read-only host path refuses it: tests/integration/execution).
    const escape = await neo(['flow', 'run', 'escape.flow.yaml', '--json']);
    expect(escape.exitCode, escape.stdout).toBe(0);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    const offline = await neo(['flow', 'run', 'offline.flow.yaml', '--json']);
    expect(summary(offline.stdout)).toMatchObject({ cause: 'FLOW_COMMAND_FAILED', exitCode: 1 });
    expect(offline.stdout).toMatch(/ECONNREFUSED|ENETUNREACH/);
  });

  it("the gate runs in the step's sandbox: the user's home is not there (with none, the same gate passes)", async () => {
    const flow = (sandbox: string) =>
      `name: gate\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: ${sandbox}\nsteps:\n  - id: work\n    brief: write a note\n    script: writes.yaml\n    verify: 'cat "$HOME/secret"'\n`;
    const { neo } = await project({
      'writes.yaml': 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n',
      'boxed.flow.yaml': flow('bwrap'),
      'open.flow.yaml': flow('none'),
    });
    const boxed = await neo(['flow', 'run', 'boxed.flow.yaml', '--json']);
    expect(summary(boxed.stdout)).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    const open = await neo(['flow', 'run', 'open.flow.yaml', '--json']);
    expect(summary(open.stdout), open.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
  });
});

describe('an agent step in bwrap: its CLI and the commands it runs are confined', () => {
  it("the script backend's commands see the workspace, not the user's home, NEO_HOME or the checkout", async () => {
    // The paths are written into the probe: an agent's commands get an allowlisted environment.
    const probe = (home: string, repo: string) =>
      `echo made > made.txt; cat "$HOME/secret" || echo no-home; ls "${home}" ; echo evil > "${repo}/README.md" || echo no-checkout`;
    const flow = (sandbox: string) =>
      `name: agent\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: ${sandbox}\nsteps:\n  - id: work\n    brief: probe\n    script: probe.yaml\n    allowCommands: ['sh probe.sh']\n    verify: 'test -f made.txt'\n`;
    const { repo, home, userHome, neo } = await project({
      'probe.yaml': 'turns:\n  - actions:\n      - run: { command: [sh, probe.sh] }\n',
      'boxed.flow.yaml': flow('bwrap'),
    });
    await writeTree(repo, { 'probe.sh': `${probe(home, repo)}\n` });
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'probe');
    const boxed = await neo(['flow', 'run', 'boxed.flow.yaml', '--json']);
    expect(summary(boxed.stdout), boxed.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const events = readFileSync(join(home, 'code-sessions', sessionOf(home), 'events.jsonl'), 'utf8');
    expect(events).toMatch(/No such file or directory\\nno-home/);
    // NEO_HOME shows only the folders that lead to the workspace bound inside it, not its run folder.
    expect(events).toMatch(/no-home\\nworktrees\\n/);
    expect(events).not.toMatch(/code-sessions/);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(userHome, 'planted'))).toBe(false);
  });
});

describe('where each step runs, said before it runs', () => {
  it('--dry-run shows each step and gate sandbox; an owner policy requires bwrap and refuses `none`', async () => {
    const { home, neo } = await project({
      'plan.flow.yaml': `name: plan\ndefaults: { backend: script }\nsteps:\n  - { id: build, run: make, network: true }\n  - id: fix\n    brief: fix it\n    verify: { run: npm test, sandbox: bwrap }\n    protect: ["tests/**"]\n`,
      'lowers.flow.yaml': `name: lowers\nsteps:\n  - { id: build, run: make, sandbox: none }\n`,
    });
    const plain = await neo(['flow', 'run', 'plan.flow.yaml', '--dry-run']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/build +run .* none \(default\) +make/);
    expect(plain.stdout).toMatch(
      /fix +agent .* none \(default\) +gate npm test \(×1\) in bwrap \(step fix verify\) · protect tests\/\*\*/,
    );

    await writeTree(home, { 'policy.yaml': 'description: confine everything\nsandbox: bwrap\n' });
    const owned = await neo(['flow', 'run', 'plan.flow.yaml', '--dry-run', '--json']);
    const steps = (JSON.parse(owned.stdout) as { steps: Array<{ id: string; sandbox: string }> }).steps;
    expect(steps.map((s) => s.sandbox)).toEqual([
      expect.stringMatching(/^bwrap \+net \(owner policy \(.*policy\.yaml\)\)$/),
      expect.stringMatching(/^bwrap \+net \(owner policy/),
    ]);
    const lowered = await neo(['flow', 'run', 'lowers.flow.yaml']);
    expect(lowered.exitCode).toBe(2);
    expect(lowered.stderr).toMatch(/would run unsandboxed .* requires `sandbox: bwrap` \[FLOW_SANDBOX_REQUIRED\]/);
  });

  it('bwrap missing: the run refuses to start (exit 7), says how to install it, and records nothing', async () => {
    const { home, neo } = await project({
      'ok.flow.yaml': `name: ok\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'true' }\n`,
    });
    const result = await neo(['flow', 'run', 'ok.flow.yaml'], { PATH: '/nonexistent' });
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toMatch(/SANDBOX_UNAVAILABLE/);
    expect(result.stderr).toMatch(
      /asks for the bwrap sandbox \(step a\) but it is unavailable here: bwrap \(bubblewrap\) is not installed/,
    );
    expect(result.stderr).toMatch(/apt-get install bubblewrap/);
    expect(existsSync(join(home, 'runs'))).toBe(false);
    const dry = await neo(['flow', 'run', 'ok.flow.yaml', '--dry-run'], { PATH: '/nonexistent' });
    expect(dry.stdout).toMatch(/warning: a real run would refuse to start: .*not installed/);
  });

  it('neo init asks for bwrap where it works, and says why not where it does not', async () => {
    const { repo, neo } = await project({});
    expect((await neo(['init'])).exitCode).toBe(0);
    const flowFile = join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml');
    expect(readFileSync(flowFile, 'utf8')).toMatch(/^sandbox: bwrap$/m);
    expect(readFileSync(flowFile, 'utf8')).toMatch(/protect: \["test\/\*\*"/);
    expect((await neo(['init', '--force'], { PATH: '/nonexistent' })).exitCode).toBe(0);
    expect(readFileSync(flowFile, 'utf8')).toMatch(/bubblewrap was not available[^]*^sandbox: none$/m);
    const dry = await neo(['flow', 'run', flowFile, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
  });

  it('neo doctor tries bwrap for real and says so', async () => {
    const { neo } = await project({});
    const works = await neo(['doctor']);
    expect(works.stdout).toMatch(/sandbox bwrap: works \(bubblewrap \d/);
    const missing = await neo(['doctor', '--json'], { PATH: '/nonexistent' });
    expect(JSON.parse(missing.stdout)).toMatchObject({
      sandboxes: [
        { kind: 'none', available: true },
        { kind: 'bwrap', available: false, detail: 'bwrap (bubblewrap) is not installed (not found on PATH)' },
      ],
    });
  });
});

/** The only code session under a NEO_HOME. */
function sessionOf(home: string): string {
  const ids = readdirSync(join(home, 'code-sessions')).filter((name) => name.startsWith('cs_'));
  if (ids.length !== 1) throw new Error(`expected one session, found ${ids.join(', ')}`);
  return ids[0]!;
}
