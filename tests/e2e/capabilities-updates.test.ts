/**
 * `neo capabilities check-updates` through the binary, against a registry and a GitHub API
 * served on 127.0.0.1: a newer npm version and a newer commit are reported, a current pin is
 * current, an unreachable source is one failed line (never a crash), and no pin is edited.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { SseClient } from '../helpers/serve.js';
import { tempDir } from '../helpers/temp.js';

const NEWER_SHA = 'b'.repeat(40);
let server: Server;
let url: string;
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '';
    asked.push(path);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (path === '/npm/@playwright%2Fmcp') return json(200, { 'dist-tags': { latest: '0.0.99' } });
    if (path === '/npm/@sentry%2Fmcp-server') return json(200, { 'dist-tags': { latest: '0.39.0' } });
    if (path.startsWith('/github/repos/prisma/skills/commits')) return json(200, [{ sha: NEWER_SHA }]);
    return json(404, { message: 'not here' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => void server.close());

interface Finding {
  id: string;
  pinned: string;
  latest?: string;
  status: string;
  detail?: string;
}

describe('neo capabilities check-updates', () => {
  it('reports newer versions and commits of pinned sources, never edits a pin, and survives a failing source', async () => {
    const home = await tempDir('neo-updates-');
    const cwd = await tempDir('neo-updates-cwd-');
    const env = { NEO_HOME: home, NEO_NPM_REGISTRY_URL: `${url}/npm`, NEO_GITHUB_API_URL: `${url}/github` };
    const catalogBefore = readFileSync(join('definitions', 'capabilities', 'playwright.yaml'), 'utf8');
    const result = await runNeo(['capabilities', 'check-updates', '--json'], { cwd, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const findings = JSON.parse(result.stdout) as Finding[];
    const byId = new Map(findings.map((f) => [f.id, f]));
    expect(byId.get('playwright')).toMatchObject({ pinned: '0.0.83', latest: '0.0.99', status: 'update' });
    expect(byId.get('sentry')).toMatchObject({ pinned: '0.39.0', latest: '0.39.0', status: 'current' });
    expect(byId.get('prisma')).toMatchObject({ latest: NEWER_SHA, status: 'update' });
    // A source the server does not know is one failed finding with its reason.
    expect(findings.filter((f) => f.status === 'failed').every((f) => /answered 404/.test(f.detail ?? ''))).toBe(true);
    expect(byId.get('neo-memory')).toMatchObject({ status: 'unpinned' });
    // Reports only: the catalog is as it was, and the report is kept for neo serve's page.
    expect(readFileSync(join('definitions', 'capabilities', 'playwright.yaml'), 'utf8')).toBe(catalogBefore);
    const report = JSON.parse(readFileSync(join(home, 'capabilities', 'updates.json'), 'utf8')) as {
      findings: Finding[];
    };
    expect(report.findings).toEqual(findings);
    // The terminal form says the same in one line per source.
    const text = await runNeo(['capabilities', 'check-updates'], { cwd, env });
    expect(text.stdout).toMatch(/playwright.*0\.0\.83.*0\.0\.99/);
  });

  it("neo serve's refresh job sends the owner one notice per pass that found newer sources", async () => {
    const home = await tempDir('neo-updates-serve-');
    // Every second instead of weekly; the fixture sources above.
    const server = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0'], {
      env: {
        NEO_HOME: home,
        NO_COLOR: '1',
        NEO_CAPABILITY_REFRESH_CRON: '* * * * * *',
        NEO_NPM_REGISTRY_URL: `${url}/npm`,
        NEO_GITHUB_API_URL: `${url}/github`,
      },
      reject: false,
      buffer: false,
    });
    try {
      const address = await new Promise<URL>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(new URL(out.trim().split('\n')[0]!));
        });
        void server.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
      });
      const token = address.hash.slice('#token='.length);
      const feed = new SseClient(`${address.origin}/api/events?topics=capability_updates`, {
        authorization: `Bearer ${token}`,
      });
      try {
        const event = await feed.waitFor((e) => e.event === 'capability_updates', 30_000);
        const notice = JSON.parse(event.data) as { checkedAt: string; updates: Finding[] };
        expect(notice.updates).toEqual(
          expect.arrayContaining([
            { id: 'playwright', pinned: '0.0.83', latest: '0.0.99' },
            expect.objectContaining({ id: 'prisma', latest: NEWER_SHA }),
          ]),
        );
        // Only sources with an update: a current pin is not in the notice.
        expect(notice.updates.map((u) => u.id)).not.toContain('sentry');
      } finally {
        await feed.close();
      }
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  });
});
