/**
 * neo's own agent as an MCP client, through the neo binary (`neo session start --backend neo
 * --mcp-config`) on the scripted model server: a fixture server built with the SDK's McpServer
 * (tests/fixtures/mcp/fixture-server.mjs) gives its tools to the agent as `mcp__<server>__<tool>`;
 * every call passes the posture gate; a crash and a hang are tool errors; the server's stderr is
 * in the session's log, redacted; no server outlives its session, a killed daemon's included.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { isAlive } from '../contract/processes.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));
const TOKEN = 'tok-fixture-secret-4821';

let server: ModelServer | undefined;
const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
  await server?.close();
  server = undefined;
});

/** A fixture server entry; its pid goes to `<root>/<name>.pid`. */
function fixtureServer(
  root: string,
  name: string,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  return {
    command: process.execPath,
    args: [FIXTURE],
    env: { MCP_FIXTURE_PID_FILE: join(root, `${name}.pid`), MCP_FIXTURE_TOKEN: '${FIXTURE_LOGIN}', ...env },
    ...extra,
  };
}

async function setup(turns: unknown[], servers: (root: string) => Record<string, unknown>) {
  server = await startModelServer({ script: { turns: turns as never } });
  const root = await tempDir('neo-e2e-mcp-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  homes.push(home);
  await writeTree(repo, { 'README.md': 'hello\n' });
  await writeTree(home, {
    'neo.yaml': scriptedAgentConfig(server.url),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  await writeFile(join(root, 'mcp.json'), JSON.stringify({ mcpServers: servers(root) }));
  const env = {
    NEO_HOME: home,
    NEO_TEST_KEY: 'sk-test',
    // A name that does not look like a secret: only the config's reference makes neo redact it.
    FIXTURE_LOGIN: TOKEN,
    NEO_TEST_UNLISTED: 'unlisted-value-7731',
    NEO_SESSION_DAEMON_IDLE_MS: '3000',
  };
  const neo = (...args: string[]) => runNeo(args, { cwd: repo, env, timeout: 60_000 });
  const json = async (...args: string[]) => {
    const result = await neo(...args, '--json');
    if (result.exitCode !== 0) {
      const log = await readFile(join(home, 'session-daemon.log'), 'utf8').catch(() => '(no daemon log)');
      throw new Error(`neo ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}\ndaemon log:\n${log}`);
    }
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const start = async (posture: string) =>
    (
      await json(
        'session',
        'start',
        '--backend',
        'neo',
        '--max-posture',
        posture,
        '--brief',
        'use the tools',
        '--mcp-config',
        join(root, 'mcp.json'),
      )
    ).sessionId as string;
  const events = async (id: string) =>
    ((await json('sessions', 'show', id, '--events')).events as Array<{ event: Record<string, unknown> }>).map(
      (e) => e.event,
    );
  const pid = async (name: string) => Number((await readFile(join(root, `${name}.pid`), 'utf8')).trim());
  const sent = () => server!.requests.map((r) => JSON.stringify(r.body)).join('\n');
  return { root, home, neo, json, start, events, pid, sent };
}

/** The text of each tool_result the session recorded, by tool_use id order. */
function results(events: Array<Record<string, unknown>>): Array<{ output: string; isError: boolean }> {
  return events
    .filter((e) => e.type === 'tool_result')
    .map((e) => ({ output: e.output as string, isError: e.isError as boolean }));
}

describe("neo's own agent with MCP servers", () => {
  it('acceptEdits: the call is asked about, allowed, and its result reaches the model; the record lists the server and its tools', async () => {
    const t = await setup(
      [{ tools: [{ name: 'mcp__fixture__echo', arguments: { text: 'hi' } }] }, { text: 'done' }],
      (root) => ({
        fixture: fixtureServer(root, 'fixture', { readOnly: ['lookup'] }),
        broken: { command: '/nonexistent/mcp-server' },
        remote: { type: 'sse' },
      }),
    );
    const id = await t.start('acceptEdits');
    const pid = await t.pid('fixture');
    const question = await t.json('session', 'read', id);
    expect(question).toMatchObject({ kind: 'clarification', toolName: 'mcp__fixture__echo' });
    await t.json('session', 'answer', id, question.clarificationId as string, '--allow');
    expect(await t.json('session', 'read', id)).toMatchObject({ kind: 'turn_complete', text: 'done' });
    // Only the variables the config lists reach the server: the unlisted one does not.
    expect(t.sent()).toContain('echo: hi (unlisted: unset)');

    const events = await t.events(id);
    const provision = events.find((e) => e.type === 'provision');
    expect(provision).toEqual({
      type: 'provision',
      applied: ['mcp:fixture'],
      ignored: ['mcp:broken', 'mcp:remote'],
      reasons: {
        'mcp:broken': expect.stringMatching(/^it did not start: /),
        'mcp:remote': 'a sse server needs a `url`',
      },
      mcp: [
        {
          server: 'broken',
          status: 'ignored',
          reason: expect.stringMatching(/^it did not start: could not start `\/nonexistent\/mcp-server`: .*ENOENT/),
        },
        {
          server: 'fixture',
          status: 'connected',
          transport: 'stdio',
          tools: [
            'mcp__fixture__echo',
            'mcp__fixture__lookup',
            'mcp__fixture__crash',
            'mcp__fixture__hang',
            'mcp__fixture__touch',
            'mcp__fixture__peek',
            'mcp__fixture__connect',
          ],
          readOnlyTools: ['mcp__fixture__lookup'],
          ignoredTools: ['dotted.name'],
        },
        { server: 'remote', status: 'ignored', reason: 'a sse server needs a `url`' },
      ],
    });
    expect(results(events)).toEqual([{ output: 'echo: hi (unlisted: unset)', isError: false }]);

    await t.json('session', 'stop', id);
    expect(isAlive(pid)).toBe(false);
    // Its stderr is in the session's log, with the token it was given redacted.
    const log = await readFile(join(t.home, 'code-sessions', id, 'mcp', 'fixture.stderr.log'), 'utf8');
    expect(log).toContain('fixture: starting with token=[redacted ${FIXTURE_LOGIN}]');
    expect(log).not.toContain(TOKEN);
  }, 120_000);

  it('plan: a tool the config declares read-only runs, any other is refused by the gate and the refusal is on record', async () => {
    const t = await setup(
      [
        {
          tools: [
            { name: 'mcp__fixture__lookup', arguments: { key: 'colour' } },
            { name: 'mcp__fixture__echo', arguments: { text: 'x' } },
          ],
        },
        { text: 'planned' },
      ],
      (root) => ({ fixture: fixtureServer(root, 'fixture', { readOnly: ['lookup'] }) }),
    );
    const id = await t.start('plan');
    // No question: the gate decides both calls itself.
    expect(await t.json('session', 'read', id)).toMatchObject({ kind: 'turn_complete', text: 'planned' });
    const events = await t.events(id);
    expect(results(events)).toEqual([
      { output: 'value of colour', isError: false },
      { output: 'denied: posture plan forbids running commands (mcp__fixture__echo)', isError: true },
    ]);
    // The server's own readOnlyHint on echo did not count; the refusal is recorded as the gate's answer.
    expect(JSON.stringify(events)).toMatch(/"toolName":"mcp__fixture__echo".*posture plan forbids running commands/);
    expect(t.sent()).toContain('value of colour');
    await t.json('session', 'stop', id);
  }, 120_000);

  it('a server that crashes mid-call and a tool that hangs are tool errors; the session goes on and no server outlives it', async () => {
    const t = await setup(
      [
        { tools: [{ name: 'mcp__fixture__crash', arguments: {} }] },
        { tools: [{ name: 'mcp__fixture__echo', arguments: { text: 'again' } }] },
        { tools: [{ name: 'mcp__slow__hang', arguments: {} }] },
        { text: 'survived' },
      ],
      (root) => ({ fixture: fixtureServer(root, 'fixture'), slow: fixtureServer(root, 'slow', { timeout: '1s' }) }),
    );
    const id = await t.start('full');
    const slow = await t.pid('slow');
    expect(await t.json('session', 'read', id)).toMatchObject({ kind: 'turn_complete', text: 'survived' });
    expect(results(await t.events(id))).toEqual([
      {
        output:
          'mcp server fixture exited with code 3 during the call to crash; its last stderr:\n' +
          'fixture: starting with token=[redacted ${FIXTURE_LOGIN}]\nfixture: crashing now',
        isError: true,
      },
      { output: 'mcp server fixture exited with code 3', isError: true },
      {
        output: "hang on mcp server slow: timed out after 1s (raise the server's `timeout` if the tool is slow)",
        isError: true,
      },
    ]);
    expect(isAlive(slow)).toBe(true);
    await t.json('session', 'stop', id);
    expect(isAlive(slow)).toBe(false);
    // The token the crash's stderr carried reached neither the model nor anything kept.
    expect(t.sent()).toContain('[redacted ${FIXTURE_LOGIN}]');
    expect(t.sent()).not.toContain(TOKEN);
    const kept = await execa('grep', ['-r', '-l', TOKEN, join(t.home, 'code-sessions', id)], { reject: false });
    expect(kept.stdout).toBe('');
  }, 120_000);

  it('--mcp-config that cannot be read, or holds no mcpServers object, is a usage error naming it', async () => {
    const root = await tempDir('neo-e2e-mcp-bad-');
    await writeFile(join(root, 'flat.json'), '{"docs": {"command": "x"}}');
    // The op's own check runs in the session daemon, which the last case starts.
    homes.push(join(root, 'home'));
    const neo = (config: string) =>
      runNeo(['session', 'start', '--backend', 'neo', '--brief', 'b', '--mcp-config', config], {
        cwd: root,
        env: { NEO_HOME: join(root, 'home') },
      });
    const missing = await neo('missing.json');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`error[CLI_BAD_OPTION]: --mcp-config: cannot read ${join(root, 'missing.json')}`);
    const flat = await neo('flat.json');
    expect(flat.exitCode).toBe(2);
    expect(flat.stderr).toContain(
      `error[CLI_BAD_OPTION]: --mcp-config: ${join(root, 'flat.json')} has no "mcpServers" object`,
    );
    const inline = await neo('{"mcpServers": {"docs": 3}}');
    expect(inline.exitCode).toBe(2);
    expect(inline.stderr).toContain('mcpServers.docs: expected an object');
    expect(existsSync(join(root, 'home', 'code-sessions'))).toBe(false);
  }, 60_000);

  it('a server that ignores the end of its stdin does not outlive a daemon killed with SIGKILL', async () => {
    const t = await setup([{ text: 'idle' }], (root) => ({
      lingering: fixtureServer(root, 'lingering', {}, { MCP_FIXTURE_LINGER: '1' }),
    }));
    const id = await t.start('full');
    expect(await t.json('session', 'read', id)).toMatchObject({ kind: 'turn_complete', text: 'idle' });
    const pid = await t.pid('lingering');
    const daemon = (JSON.parse((await t.neo('session', 'daemon', '--status')).stdout) as { pid: number }).pid;
    process.kill(daemon, 'SIGKILL');
    while (isAlive(daemon)) await new Promise((r) => setTimeout(r, 20));
    // The next daemon stops what the dead one left before it hosts anything.
    const next = await t.neo('session', 'start', '--backend', 'neo', '--brief', 'b', '--max-posture', 'plan');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(t.home, 'code-sessions', id, 'mcp', 'lingering.stderr.log'))).toBe(true);
  }, 120_000);
});
