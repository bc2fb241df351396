/**
 * An agent's bytes are data. A secret it writes into a file is redacted in the turn's diff before
 * the diff is stored or shown, and an escape sequence it says never reaches the terminal, through
 * every human-facing path (session read, sessions show/tail/list, flow run, flow show, persona run).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'sk-ant-e2e-9f3c1d7a5b2e4c68';

/** A window title, a screen clear, a cursor jump, a hidden run and a carriage-return overwrite. */
const HOSTILE = String.raw`\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[8mhidden\x1b[0m\rdone`;

const SCRIPT = `
turns:
  - - say: "working ${HOSTILE}"
    - write: { path: leak.txt, content: "key=${SECRET}\\n" }
    - say: "finished ${HOSTILE} with ${SECRET}"
`;

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

async function setup() {
  const home = await tempDir('neo-bytes-home-');
  homes.push(home);
  const repo = await tempDir('neo-bytes-repo-');
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  await writeFile(join(repo, 'README.md'), '# r\n');
  await writeFile(join(repo, 'agent.yaml'), SCRIPT);
  // A file name is the agent's too: the persona's notes name it.
  await writeFile(join(repo, 'named.yaml'), `turns:\n  - - write: { path: "pwn${HOSTILE}.txt", content: "x\\n" }\n`);
  await writeFile(
    join(repo, 'plan.yaml'),
    [
      'name: bytes',
      'defaults: { backend: script }',
      'steps:',
      '  - { id: work, brief: do it, script: agent.yaml }',
      '',
    ].join('\n'),
  );
  await execa('git', ['add', '-A'], { cwd: repo });
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], { cwd: repo });
  const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500', ANTHROPIC_API_KEY: SECRET };
  const neo = (...args: string[]) => runNeo(args, { cwd: repo, env });
  return { home, repo, env, neo };
}

/** What a terminal would get: no ESC, no C1, no carriage return, no secret. */
function expectSafe(text: string, where: string): void {
  expect(text, where).not.toMatch(/[\u001b\u009b\u009d\r\u0007]/);
  expect(text, where).not.toContain(SECRET);
}

async function storeText(dir: string): Promise<string> {
  let all = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.parentPath.includes('/snapshots')) continue;
    all += await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return all;
}

describe("an agent's bytes", () => {
  it('a secret written into a file is redacted in the stored and printed diff; escapes never reach the terminal', async () => {
    const { home, neo } = await setup();
    const started = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      'agent.yaml',
      '--brief',
      'x',
      '--json',
    );
    expect(started.exitCode, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;

    const read = await neo('session', 'read', id, '--diff');
    expect(read.exitCode, read.stderr).toBe(0);
    expectSafe(read.stdout, 'session read --diff');
    expect(read.stdout).toContain('+key=[redacted ${ANTHROPIC_API_KEY}]');
    expect(read.stdout).toContain('finished');
    expect(read.stdout).toContain('done');

    await neo('session', 'stop', id);
    const show = await neo('sessions', 'show', id, '--events');
    expect(show.exitCode, show.stderr).toBe(0);
    expectSafe(show.stdout, 'sessions show --events');
    expect(show.stdout).toContain('turn_diff');
    const showJson = await neo('sessions', 'show', id, '--events', '--json');
    expect(showJson.stdout).toContain('+key=[redacted ${ANTHROPIC_API_KEY}]');
    expect(showJson.stdout).not.toContain(SECRET);
    const tail = await neo('sessions', 'tail', id);
    expectSafe(tail.stdout, 'sessions tail');
    expect(tail.stdout).toContain('working');
    const list = await neo('sessions', 'list');
    expectSafe(list.stdout, 'sessions list');

    // The store holds the redacted diff only (the file itself is the user's workspace).
    const events = await readFile(join(home, 'code-sessions', id, 'events.jsonl'), 'utf8');
    expect(events).toContain('[redacted ${ANTHROPIC_API_KEY}]');
    expect(await storeText(join(home, 'code-sessions', id))).not.toContain(SECRET);
  });

  it('flow run, flow show and persona run print what the agent said without its escapes or secrets', async () => {
    const { home, neo } = await setup();
    const run = await neo('flow', 'run', 'plan.yaml');
    expect(run.exitCode, run.stderr).toBe(0);
    expectSafe(run.stdout + run.stderr, 'flow run');
    const runId = /run (\S+) ·/.exec(run.stdout)?.[1];
    expect(runId).toBeDefined();
    const shown = await neo('flow', 'show', runId!, '--events');
    expectSafe(shown.stdout, 'flow show');
    expect(await storeText(join(home, 'runs'))).not.toContain(SECRET);

    const persona = await neo(
      'persona',
      'run',
      'code-specialist',
      '--brief',
      'x',
      '--backend',
      'script',
      '--script',
      'named.yaml',
    );
    expectSafe(persona.stdout + persona.stderr, 'persona run');
    expect(persona.stdout).toContain('write on pwnhiddendone.txt');
  });
});
