/**
 * The curated hand-over to neo's own agent, through the neo binary on the scripted model server:
 * a repository the catalog matches gets the entry's stdio MCP server (a fixture built with the
 * SDK) in a flow step on `backend: neo`; the agent lists its tools and calls them. A tool the
 * entry declares read-only runs under every posture; any other tool of the server is "run":
 * refused under plan, allowed by the flow's default driver where the ceiling lets commands be
 * asked about (acceptEdits) — without the step listing it in `allowedTools`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { isAlive } from '../contract/processes.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function project(posture: string) {
  server = await startModelServer({
    script: {
      turns: [
        {
          tools: [
            { name: 'mcp__fx__lookup', arguments: { key: 'colour' } },
            { name: 'mcp__fx__touch', arguments: { path: 'touched.txt' } },
          ],
        },
        { text: 'done' },
      ] as never,
    },
  });
  const root = await tempDir('neo-e2e-cap-agent-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const entry = {
    description: 'fixture tools',
    trustTier: 'T2',
    source: { kind: 'npm', package: 'fixture-mcp', version: '1.0.0' },
    detect: [{ fileExists: 'fixture.toml' }],
    provides: {
      mcpServers: {
        fx: {
          command: process.execPath,
          args: [FIXTURE],
          env: { MCP_FIXTURE_PID_FILE: join(root, 'fx.pid') },
          readOnly: ['lookup'],
        },
      },
    },
  };
  await writeTree(home, {
    'neo.yaml': scriptedAgentConfig(server.url),
    'definitions/capabilities/fixture.yaml': JSON.stringify(entry),
  });
  await writeTree(repo, {
    'fixture.toml': '',
    'work.flow.yaml': [
      'name: work',
      `defaults: { backend: neo, maxPosture: ${posture}, posture: ${posture}, maxRounds: 3 }`,
      'steps:',
      '  - id: work',
      '    brief: use the fixture tools',
      '    requireChange: false',
      '',
    ].join('\n'),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, NEO_TEST_KEY: 'sk-test' };
  const approved = await runNeo(['capabilities', 'approve', 'fixture'], { cwd: repo, env });
  expect(approved.exitCode, approved.stderr).toBe(0);
  const run = () => runNeo(['flow', 'run', 'work.flow.yaml', '--json'], { cwd: repo, env, timeout: 60_000 });
  return { root, repo, home, run };
}

/** The tools the model was offered, and the tool results it was sent back. */
function toolResults(model: ModelServer): string {
  const bodies = model.requests.map((r) => r.body as { tools?: Array<{ name: string }>; messages: unknown[] });
  const offered = (bodies[0]?.tools ?? []).map((t) => t.name);
  const results = JSON.stringify(bodies.at(-1)?.messages ?? []).match(/"tool_result".*?"content":"[^"]*"/g) ?? [];
  return [...offered, ...results].join('\n');
}

function sessionRecord(home: string): Record<string, any> {
  const dir = join(home, 'code-sessions');
  const id = readdirSync(dir).find((n) => n.startsWith('cs_'))!;
  return JSON.parse(readFileSync(join(dir, id, 'meta.json'), 'utf8'));
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

describe("curated MCP servers in neo's own agent", () => {
  it('posture plan: the read-only tool runs, the other tool is refused as a command', async () => {
    const { root, repo, home, run } = await project('plan');
    const result = await run();
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'succeeded' });
    const sent = toolResults(server!);
    // The agent was given the server's tools and called them.
    expect(sent).toContain('mcp__fx__lookup');
    expect(sent).toContain('value of colour');
    expect(sent).toMatch(/posture plan forbids running commands \(mcp__fx__touch on touched\.txt\)/);
    expect(sent).not.toContain('wrote touched.txt');
    expect(existsSync(join(repo, 'touched.txt'))).toBe(false);
    const provision = sessionRecord(home).provision;
    expect(provision.applied).toEqual(['fixture:mcp:fx']);
    expect(provision.tiers).toEqual({ fixture: 'T2' });
    // The server stopped with the session.
    expect(isAlive(Number(readFileSync(join(root, 'fx.pid'), 'utf8')))).toBe(false);
  });

  it('posture acceptEdits: the other tool is asked about and the flow driver allows it (a curated server)', async () => {
    const { root, home, run } = await project('acceptEdits');
    const result = await run();
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'succeeded' });
    const sent = toolResults(server!);
    expect(sent).toContain('value of colour');
    expect(sent).toContain('wrote touched.txt');
    const events = readFileSync(join(home, 'code-sessions', sessionRecord(home).sessionId, 'events.jsonl'), 'utf8');
    expect(events).toMatch(/mcp__fx__touch is a tool of the MCP server fx, which neo provisioned for this project/);
    expect(isAlive(Number(readFileSync(join(root, 'fx.pid'), 'utf8')))).toBe(false);
  });
});
