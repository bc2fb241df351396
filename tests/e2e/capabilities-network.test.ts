/**
 * "The network only where its entry says so": in a flow under `sandbox: bwrap` (whose agent has
 * the network, as every agent CLI does), a curated stdio MCP server whose entry does not ask for
 * the network runs in a network namespace of its own and cannot reach a listener on the host's
 * 127.0.0.1; the same server from an entry with `network: true` can. Through the neo binary, on
 * neo's own agent and the scripted model.
 */
import { createServer, type Server } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

let model: ModelServer | undefined;
let listener: Server | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
  await new Promise((resolve) => (listener === undefined ? resolve(undefined) : listener.close(resolve)));
  listener = undefined;
});

function entry(network: boolean) {
  return {
    description: `fixture tools, network ${network}`,
    trustTier: 'T2',
    source: { kind: 'npm', package: `fixture-${network ? 'online' : 'offline'}`, version: '1.0.0' },
    detect: [{ fileExists: 'fixture.toml' }],
    provides: {
      mcpServers: { [network ? 'on' : 'off']: { command: process.execPath, args: [FIXTURE], readOnly: ['connect'] } },
    },
    ...(network ? { network: true } : {}),
  };
}

describe('a curated stdio server in a sandbox with the network', () => {
  it('has none unless its entry asks for it', async () => {
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    model = await startModelServer({
      script: {
        turns: [
          {
            tools: [
              { name: 'mcp__off__connect', arguments: { port } },
              { name: 'mcp__on__connect', arguments: { port } },
            ],
          },
          { text: 'done' },
        ] as never,
      },
    });
    const root = await tempDir('neo-e2e-cap-net-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    await writeTree(home, {
      'neo.yaml': scriptedAgentConfig(model.url),
      'definitions/capabilities/offline.yaml': JSON.stringify(entry(false)),
      'definitions/capabilities/online.yaml': JSON.stringify(entry(true)),
    });
    await writeTree(repo, {
      'fixture.toml': '',
      'work.flow.yaml':
        'name: work\nsandbox: bwrap\ndefaults: { backend: neo, maxPosture: plan, posture: plan, maxRounds: 3 }\nsteps:\n  - id: work\n    brief: connect\n    requireChange: false\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: home, NEO_TEST_KEY: 'sk-test' };
    for (const id of ['offline', 'online'])
      expect((await runNeo(['capabilities', 'approve', id], { cwd: repo, env })).exitCode).toBe(0);

    const result = await runNeo(['flow', 'run', 'work.flow.yaml', '--json'], { cwd: repo, env, timeout: 60_000 });
    expect(result.exitCode, result.stdout.slice(-2000) + result.stderr).toBe(0);
    const last = model.requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
    const results = (last.messages.at(-1)!.content as Array<{ tool_use_id: string; content: string }>).map(
      (r) => r.content,
    );
    // The listener is on the host's loopback: reachable with the network, not from a namespace without it.
    expect(results).toEqual([expect.stringMatching(/^(ENETUNREACH|ECONNREFUSED|EHOSTUNREACH)$/), 'connected']);
    const sessions = join(home, 'code-sessions');
    const id = readdirSync(sessions).find((n) => n.startsWith('cs_'))!;
    const provision = JSON.parse(readFileSync(join(sessions, id, 'meta.json'), 'utf8')).provision;
    expect(provision.applied).toEqual(['offline:mcp:off', 'online:mcp:on']);
  });
});
