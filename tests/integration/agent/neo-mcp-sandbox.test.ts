/**
 * Under a sandbox, an MCP server of neo's own agent runs confined like the agent's commands: in
 * bwrap, the host read-only, the session's hidden trees empty, only the workspace writable.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { harness, type Harness } from '../../fixtures/agent/neo-harness.js';
import { tempDir } from '../../helpers/temp.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/fixture-server.mjs', import.meta.url));

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const results = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'tool_result' ? [e.output] : []));

describe("neo's own agent's MCP servers in bwrap", () => {
  it('a server cannot write outside the workspace nor read a hidden tree; inside the workspace it can', async () => {
    // A host folder outside every temp dir (a private /tmp would hide a temp one): read-only inside.
    const outside = dirname(FIXTURE);
    const escaped = join(outside, `escaped-${process.pid}.txt`);
    const secret = await tempDir('neo-mcp-hidden-');
    await writeFile(join(secret, 'key.txt'), 'THE HIDDEN KEY\n');
    const tool = (name: string, path: string) => ({ name: `mcp__box__${name}`, arguments: { path } });
    h = await harness(
      {
        turns: [
          {
            tools: [tool('touch', escaped), tool('peek', join(secret, 'key.txt')), tool('touch', 'inside.txt')],
          },
          { text: 'done' },
        ],
      },
      { posture: 'full' },
    );
    const repo = h.repo;
    const reader = await h.start({
      provision: { mcpServers: { box: { command: process.execPath, args: [FIXTURE] } } },
      sandbox: { kind: 'bwrap', binds: [{ path: repo, write: true }], hide: [secret], network: false },
    });
    const events = await reader.until('turn_complete');
    expect(results(events)).toEqual(['EROFS', 'ENOENT', 'wrote inside.txt']);
    expect(existsSync(escaped)).toBe(false);
    expect(existsSync(join(repo, 'inside.txt'))).toBe(true);
  }, 60_000);

  it('a remote server is ignored, with the reason, when the sandbox has no network', async () => {
    h = await harness({ turns: [{ text: 'done' }] }, { posture: 'full' });
    const reader = await h.start({
      provision: { mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } },
      sandbox: { kind: 'bwrap', binds: [{ path: h.repo, write: true }], hide: [], network: false },
    });
    const events = await reader.until('turn_complete');
    expect(events.find((e) => e.type === 'provision')).toEqual({
      type: 'provision',
      applied: [],
      ignored: ['mcp:docs'],
      reasons: { 'mcp:docs': "it is a remote (http) server and the session's sandbox has no network" },
      mcp: [
        {
          server: 'docs',
          status: 'ignored',
          reason: "it is a remote (http) server and the session's sandbox has no network",
        },
      ],
    });
  }, 60_000);
});
