/**
 * A curated entry's MCP servers in each backend's own shape, as the (fake) CLIs receive them
 * through `neo flow run`: Codex gets `-c mcp_servers.<name>={…}` with secrets passed by NAME
 * (`env_vars`) and no SSE server; an ACP agent gets `mcpServers` in `session/new` with the
 * references filled in memory. The session record says what the backend actually took: the SSE
 * server the ACP agent does not advertise is ignored, with the transport's reason.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_BINARIES, fakeWithEnv, readWireLog } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { readdirSync, readFileSync } from 'node:fs';

const TOKEN = 'tok-shapes-5521';

async function project(backend: string) {
  const root = await tempDir('neo-e2e-cap-shapes-');
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  const entry = {
    description: 'servers in every shape',
    trustTier: 'T2',
    source: { kind: 'npm', package: 'shapes-mcp', version: '2.0.0' },
    authEnv: ['SHAPES_TOKEN'],
    detect: [{ fileExists: 'shapes.toml' }],
    provides: {
      mcpServers: {
        local: {
          command: 'node',
          args: ['server.js', '--fast'],
          env: { SHAPES_TOKEN: '${SHAPES_TOKEN}', MODE: 'fast' },
          readOnly: true,
        },
        feed: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
    },
  };
  await writeTree(home, { 'definitions/capabilities/shapes.yaml': JSON.stringify(entry) });
  await writeTree(repo, {
    'shapes.toml': '',
    'plan.yaml': `name: shapes\ndefaults: { backend: ${backend}, maxPosture: acceptEdits }\nsteps:\n  - id: work\n    brief: say hi\n    requireChange: false\n`,
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, SHAPES_TOKEN: TOKEN };
  const approved = await runNeo(['capabilities', 'approve', 'shapes'], { cwd: repo, env });
  expect(approved.exitCode, approved.stderr).toBe(0);
  return { root, home, repo, env };
}

function provisionRecord(home: string): Record<string, any> {
  const dir = join(home, 'code-sessions');
  const id = readdirSync(dir).find((n) => n.startsWith('cs_'))!;
  return JSON.parse(readFileSync(join(dir, id, 'meta.json'), 'utf8')).provision;
}

describe('curated MCP servers in each backend’s shape', () => {
  it('Codex: `-c mcp_servers.local={…}` with the secret passed by name; SSE left out by the plan, with why', async () => {
    const { root, home, repo, env } = await project('codex');
    const log = join(root, 'wire.jsonl');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        ...env,
        NEO_CODEX_BIN: fakeWithEnv(FAKE_BINARIES.codex, { FAKE_CLI_HOME: join(root, 'fake'), FAKE_CLI_LOG: log }, root),
      },
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const argv = readWireLog(log).find((r) => r.dir === 'argv')!.argv!;
    const overrides = argv.filter((_, i) => argv[i - 1] === '-c' && argv[i]!.startsWith('mcp_servers.'));
    expect(overrides).toEqual([
      'mcp_servers.local={command = "node", args = ["server.js", "--fast"], env = {MODE = "fast"}, env_vars = ["SHAPES_TOKEN"]}',
    ]);
    expect(argv.join(' ')).not.toContain(TOKEN);
    const provision = provisionRecord(home);
    expect(provision.applied).toEqual(['shapes:mcp:local']);
    expect(provision.ignored.filter((i: { capability: string }) => i.capability === 'shapes')).toEqual([
      { capability: 'shapes', item: 'mcp:feed', reason: 'Codex takes stdio and streamable-HTTP MCP servers, not SSE' },
    ]);
    expect(provision.acknowledged).toBe(true);
  });

  it('ACP: `mcpServers` in session/new with the reference filled; the SSE server the agent does not advertise is ignored on record', async () => {
    const { root, home, repo, env } = await project('gemini');
    const log = join(root, 'wire.jsonl');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        ...env,
        NEO_GEMINI_BIN: fakeWithEnv(
          FAKE_BINARIES.acp,
          { FAKE_CLI_HOME: join(root, 'fake'), FAKE_CLI_LOG: log, FAKE_ACP_AUTO_MODES: 'default' },
          root,
        ),
      },
    });
    expect(result.stdout + result.stderr).toMatch(/"type":"summary"/);
    const sessionNew = readWireLog(log).find((r) => r.dir === 'in' && r.message?.method === 'session/new')!;
    expect((sessionNew.message!.params as Record<string, unknown>).mcpServers).toEqual([
      {
        name: 'local',
        command: 'node',
        args: ['server.js', '--fast'],
        env: [
          { name: 'SHAPES_TOKEN', value: TOKEN },
          { name: 'MODE', value: 'fast' },
        ],
      },
    ]);
    const provision = provisionRecord(home);
    // The plan handed both over; the agent advertises no SSE, so the transport left `feed` out.
    expect(provision.applied).toEqual(['shapes:mcp:local']);
    expect(provision.ignored.filter((i: { capability: string }) => i.capability === 'shapes')).toEqual([
      {
        capability: 'shapes',
        item: 'mcp:feed',
        reason: 'the agent does not advertise sse MCP servers (mcpCapabilities.sse)',
      },
    ]);
    expect(provision.acknowledged).toBe(true);
  });
});
