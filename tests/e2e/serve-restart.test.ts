/**
 * `neo serve` killed with SIGKILL mid-flow and started again on its port: the flow process
 * reattaches by itself, the restarted server streams its session's events and steers it
 * (guidance, an interrupt) and the run (cancel), as the first server did, and the page open on
 * the run says "reconnecting" while the server is away, then follows the run again.
 */
import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';
import { SseClient } from '../helpers/serve.js';
import { openBrowser, startServe, stopServe } from './browser.js';

const PLAN = `
name: steered
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 3 }
steps:
  - id: work
    brief: Work until a person says otherwise.
    script: hang.yaml
`;
const HANG = 'turns:\n  - - say: Working on it.\n    - hang:\n  - - say: Heard the restarted server.\n';

/** Calls one server with its token. */
function client(url: string) {
  const origin = new URL(url).origin;
  const token = new URL(url).hash.slice('#token='.length);
  const headers = { authorization: `Bearer ${token}` };
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { ok: boolean; data?: any; error?: any } };
  };
  return { origin, headers, call };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('neo serve restarts under a running flow', () => {
  it('the flow reattaches; the restarted server streams and steers it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'neo-restart-home-'));
    const repo = await mkdtemp(join(tmpdir(), 'neo-restart-repo-'));
    await writeFile(join(repo, 'plan.yaml'), PLAN);
    await writeFile(join(repo, 'hang.yaml'), HANG);
    const first = await startServe(home);
    let second: Awaited<ReturnType<typeof startServe>> | undefined;
    const flow = execa(process.execPath, [NEO_BIN, 'flow', 'run', 'plan.yaml'], {
      cwd: repo,
      env: { NEO_HOME: home, NO_COLOR: '1' },
      reject: false,
    });
    let feed: SseClient | undefined;
    const browser = await openBrowser();
    try {
      const before = client(first.url);
      const sessionId = await until(async () => {
        const list = (await before.call('/api/code-sessions')).body.data;
        return (list.live as string[])[0];
      }, 'the flow session to be live');
      await until(async () => {
        const events = (await before.call(`/api/code-sessions/${sessionId}`)).body.data.events;
        return events.some((e: { event: { type: string; text?: string } }) => e.event.text === 'Working on it.')
          ? true
          : undefined;
      }, 'the first turn');
      const runId = ((await before.call('/api/flows/runs')).body.data.live as string[])[0]!;
      const { page } = browser;
      await page.goto(first.url.replace('#', `flows/${runId}#`));
      await page.getByTestId('graph').locator('g[data-step="work"][data-status="running"]').waitFor();
      await page.getByTestId('conn').getByText('live').waitFor();

      first.server.kill('SIGKILL');
      await first.server;
      await page.getByTestId('conn').getByText('reconnecting').waitFor();
      second = await startServe(home, new URL(first.url).port);
      await page.getByTestId('conn').getByText('live').waitFor();
      const after = client(second.url);
      expect(after.origin).not.toBe('');
      // The flow process finds the new server and says what it holds.
      await until(async () => {
        const list = (await after.call('/api/code-sessions')).body.data;
        return (list.live as string[]).includes(sessionId) ? true : undefined;
      }, 'the session to be live on the restarted server');
      expect((await after.call(`/api/flows/runs/${runId}`)).body.data.live).toBe(true);

      feed = new SseClient(
        `${after.origin}/api/events?topics=code_session_event&sessionId=${sessionId}`,
        after.headers,
      );
      const guided = await after.call(`/api/code-sessions/${sessionId}/guidance`, {
        text: 'A word from the restarted server.',
      });
      expect(guided.status).toBe(200);
      await feed.waitFor((e) => {
        const event = JSON.parse(e.data).event;
        return event.type === 'guidance' && String(event.text).includes('restarted server');
      });
      const interrupted = await after.call(`/api/code-sessions/${sessionId}/interrupt`, {});
      expect(interrupted.status).toBe(200);
      await feed.waitFor((e) => JSON.parse(e.data).event.type === 'turn_complete');

      const cancelled = await after.call(`/api/flows/runs/${runId}/cancel`, {});
      expect([cancelled.status, cancelled.body.error]).toEqual([200, undefined]);
      const result = await flow;
      expect(result.exitCode).toBe(130);
      expect((await after.call(`/api/flows/runs/${runId}`)).body.data.record.status).toBe('interrupted');
      // The page followed the run through the restart: its state, not the one it had before.
      await page.locator('.page .badge', { hasText: 'interrupted' }).first().waitFor();
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    } finally {
      await browser.close();
      await feed?.close();
      flow.kill('SIGTERM');
      await flow;
      first.server.kill('SIGKILL');
      await first.server;
      await stopServe(second?.server);
      await rm(home, { recursive: true, force: true });
      await rm(repo, { recursive: true, force: true });
    }
  }, 120_000);
});
