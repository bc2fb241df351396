/**
 * The control plane a team can lean on, in chromium through `neo serve`, with flows driven by
 * the script backend: one answer per approval (two tabs racing, the buttons disabled while a
 * request is in flight, the winning answer shown to the loser).
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { openBrowser, startServe, stopServe } from './browser.js';

const SHOTS = join(process.cwd(), 'test-results', 'web-control');

const APPROVAL = `
name: one-answer
steps:
  - id: ship
    approval:
      prompt: "Ship it?"
      decisions: [ { id: approve, label: Approve }, { id: reject, label: Reject, fail: true } ]
  - { id: announce, needs: [ship], run: 'echo shipped' }
`;

const STEERED = `
name: steered
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 3 }
steps:
  - id: work
    brief: Work until a person says otherwise.
    script: hang.yaml
  - { id: after, needs: [work], run: 'echo after' }
`;

// JSON is YAML: the escapes stay exact.
const LONG = Array.from({ length: 400 }, (_, i) => `line ${i + 1} of a very long message`).join('\n');
const COLOURS = {
  turns: [
    [
      { say: 'Build \u001b[31mfailed\u001b[0m, then \u001b[1;32mpassed\u001b[0m.\u001b]0;title\u0007' },
      { run: { command: 'echo tool-output-here' } },
      { say: LONG },
    ],
  ],
};

let server: ResultPromise | undefined;
let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let context: BrowserContext;
let page: Page;
let home: string;
let repo: string;
let url: string;

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  home = await mkdtemp(join(tmpdir(), 'neo-webc-home-'));
  repo = await mkdtemp(join(tmpdir(), 'neo-webc-repo-'));
  await writeFile(join(repo, 'approval.yaml'), APPROVAL);
  await writeFile(join(repo, 'ends.yaml'), 'turns:\n  - - say: All done, closing.\n    - end: { ok: true }\n');
  await writeFile(join(repo, 'steered.yaml'), STEERED);
  await writeFile(
    join(repo, 'asks.yaml'),
    'turns:\n  - - run: { command: "echo asked" }\n    - say: after the question\n',
  );
  await writeFile(join(repo, 'colours.yaml'), JSON.stringify(COLOURS));
  await writeFile(join(repo, 'hang.yaml'), 'turns:\n  - - say: Working on it.\n    - hang:\n');
  await writeFile(join(repo, 'talks.yaml'), 'turns:\n  - - say: First turn.\n  - - say: Second turn.\n');
  ({ server, url } = await startServe(home));
  browser = await openBrowser();
  ({ context, page } = browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stopServe(server);
  await rm(home, { recursive: true, force: true });
  await rm(repo, { recursive: true, force: true });
}, 60_000);

function flowRun(file: string) {
  return execa(process.execPath, [NEO_BIN, 'flow', 'run', file], {
    cwd: repo,
    env: { NEO_HOME: home, NO_COLOR: '1' },
    reject: false,
  });
}

describe('one answer per approval, from the page', () => {
  it('two tabs: the buttons wait for the server, the first answer wins and the other tab is shown it', async () => {
    const flow = flowRun('approval.yaml');
    const other = await context.newPage();
    try {
      for (const tab of [page, other]) {
        await tab.goto(`${url.replace('#', 'approvals#')}`);
        await tab.getByTestId('inbox').locator('li[data-key="ship"]').getByText('Ship it?').waitFor();
      }
      // Tab one's answer is held at the network until tab two has answered too.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/approvals/*/ship', async (route) => {
        await held;
        await route.continue();
      });
      const mine = page.getByTestId('inbox').locator('li[data-key="ship"]');
      await mine.getByRole('button', { name: 'Approve' }).click();
      expect(await mine.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      expect(await mine.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(true);
      const theirs = other.getByTestId('inbox').locator('li[data-key="ship"]');
      await theirs.getByPlaceholder('reason (optional, recorded)').fill('not today');
      await theirs.getByRole('button', { name: 'Reject' }).click();
      await theirs.getByTestId('answered').getByText('Answered Reject — not today').waitFor();
      release();
      const lost = mine.getByTestId('answered');
      await lost.waitFor();
      expect(await lost.innerText()).toMatch(/^Already answered: Reject by web at .+ — not today$/);
      await page.screenshot({ path: join(SHOTS, 'approval-lost.png'), fullPage: true });
      const result = await flow;
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toContain('by web');
    } finally {
      await other.close();
      flow.kill('SIGTERM');
      await flow;
    }
  });
});

/** Starts a script session through the server (`neo session start` reaches its daemon). */
async function startSession(script: string): Promise<string> {
  const started = await runNeo(
    ['session', 'start', '--backend', 'script', '--script', join(repo, script), '--brief', `play ${script}`, '--json'],
    { cwd: repo, env: { NEO_HOME: home } },
  );
  expect(started.exitCode).toBe(0);
  return JSON.parse(started.stdout).sessionId as string;
}

describe('session liveness, from the page', () => {
  it('a session whose agent ended itself is not live: no guidance box, Release, then Resume', async () => {
    const id = await startSession('ends.yaml');
    await page.goto(url.replace('#', `sessions/${id}#`));
    await page.getByText('All done, closing.').first().waitFor();
    await page.getByRole('button', { name: 'Release' }).waitFor();
    expect(await page.locator('.facts .live-dot').count()).toBe(0);
    expect(await page.getByTestId('guidance-text').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Interrupt' }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'session-ended.png'), fullPage: true });
    await page.getByRole('button', { name: 'Release' }).click();
    await page.getByTestId('resume').waitFor();
    await page.getByRole('button', { name: 'Release' }).waitFor({ state: 'detached' });
  });

  it('Stop ends a live session from the page', async () => {
    const id = await startSession('talks.yaml');
    await page.goto(url.replace('#', `sessions/${id}#`));
    await page.getByText('First turn.').waitFor();
    await page.getByTestId('guidance-text').waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByTestId('resume').waitFor();
    expect(await page.getByTestId('guidance-text').count()).toBe(0);
    const shown = await runNeo(['sessions', 'show', id, '--json'], { cwd: repo, env: { NEO_HOME: home } });
    expect(JSON.parse(shown.stdout).record).toMatchObject({ status: 'ended', outcome: 'aborted' });
  });
});

describe('a run, from the page', () => {
  it('a running step links its live session at once; after Cancel nothing on the page says running', async () => {
    const flow = flowRun('steered.yaml');
    try {
      await page.goto(url.replace('#', 'flows#'));
      await page.locator('tr[data-run]', { hasText: 'steered' }).getByRole('link').click();
      const graph = page.getByTestId('graph');
      await graph.locator('g[data-step="work"][data-status="running"]').waitFor();
      const link = page.getByTestId('step-work').getByTestId('step-session');
      await link.getByText('live session').waitFor();
      await page.screenshot({ path: join(SHOTS, 'run-live-session.png'), fullPage: true });
      const runUrl = page.url();
      await link.click();
      await page.getByText('Working on it.').first().waitFor();
      await page.getByTestId('guidance-text').waitFor();
      await page.goto(runUrl);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await graph.locator('g[data-step="work"]:not([data-status="running"])').waitFor();
      await page.getByRole('button', { name: 'Resume' }).waitFor();
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
      expect(await page.locator('.page .badge', { hasText: 'running' }).count()).toBe(0);
      expect(await page.locator('.page .live-dot').count()).toBe(0);
      expect((await flow).exitCode).toBe(130);
    } finally {
      flow.kill('SIGTERM');
      await flow;
    }
  });
});

describe('the feed, from the page', () => {
  it('renders ANSI colours as styles, collapses a long message, stamps each item and filters', async () => {
    const started = await runNeo(
      [
        'session',
        'start',
        '--backend',
        'script',
        '--script',
        join(repo, 'colours.yaml'),
        '--brief',
        'colours',
        '--max-posture',
        'full',
        '--json',
      ],
      { cwd: repo, env: { NEO_HOME: home } },
    );
    expect(started.exitCode).toBe(0);
    const id = JSON.parse(started.stdout).sessionId as string;
    await page.goto(url.replace('#', `sessions/${id}#`));
    const feed = page.getByTestId('feed');
    await feed.locator('.ansi-fg-1', { hasText: 'failed' }).waitFor();
    await feed.locator('.ansi-fg-2.ansi-bold', { hasText: 'passed' }).waitFor();
    const text = await feed.innerText();
    expect(text).toContain('Build failed, then passed.');
    expect(text).not.toMatch(/\u001b|\[31m|\]0;title/);
    // 400 lines collapsed to their head, with the whole one a click away.
    expect(text).toContain('line 30 of a very long message');
    expect(text).not.toContain('line 31 of a very long message');
    const showAll = feed.getByTestId('show-all').filter({ hasText: 'show all (400 lines' });
    const height = await page.evaluate('document.body.scrollHeight');
    expect(height).toBeLessThan(4000);
    await page.screenshot({ path: join(SHOTS, 'feed-collapsed.png'), fullPage: true });
    await showAll.click();
    await feed.getByText('line 400 of a very long message').waitFor();
    // Every item has its time; a tool card its duration.
    expect(await feed.locator('time.f-at').count()).toBeGreaterThanOrEqual(3);
    await feed
      .getByTestId('tool-card')
      .locator('summary', { hasText: /\d+(\.\d)? (ms|s)$/ })
      .waitFor();
    await page.getByTestId('feed-filter').fill('tool-output-here');
    await feed.getByTestId('tool-card').waitFor();
    expect(await feed.locator('li').count()).toBe(1);
  });
});

describe('what needs you, lists and tabs', () => {
  it('counts what waits for a person in the top bar and lists a session blocked on a permission question', async () => {
    const id = await startSession('asks.yaml');
    await page.goto(url.replace('#', 'approvals#'));
    const waiting = page.getByTestId('waiting-sessions').locator(`li[data-session="${id}"]`);
    await waiting.waitFor();
    expect(Number(await page.getByTestId('needs-you-count').innerText())).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: join(SHOTS, 'needs-you.png'), fullPage: true });
    await waiting.getByRole('link').click();
    await page.getByTestId('clarification').getByRole('button', { name: 'Allow' }).click();
    await page.getByText('after the question').first().waitFor();
    await page.goto(url.replace('#', 'approvals#'));
    await page.getByRole('heading', { name: 'Needs you' }).waitFor();
    await page.getByTestId('waiting-sessions').locator(`li[data-session="${id}"]`).waitFor({ state: 'detached' });
  });

  it('filters sessions and runs by text, status and backend or flow', async () => {
    await page.goto(url.replace('#', 'sessions#'));
    const rows = page.getByTestId('sessions').locator('tbody tr');
    await rows.first().waitFor();
    const total = await rows.count();
    expect(total).toBeGreaterThan(2);
    await page.getByTestId('filter-text').fill('colours');
    expect(await rows.count()).toBe(1);
    await page.getByTestId('filter-text').fill('');
    await page.getByTestId('filter-status').selectOption('ended');
    const ended = await rows.count();
    expect(ended).toBeGreaterThan(0);
    expect(ended).toBeLessThan(total);
    await page.goto(url.replace('#', 'flows#'));
    const runs = page.getByTestId('runs').locator('tbody tr');
    await runs.first().waitFor();
    await page.getByTestId('filter-kind').selectOption('steered');
    expect(await runs.count()).toBe(1);
    await page.getByTestId('filter-age').selectOption({ label: 'last hour' });
    expect(await runs.count()).toBe(1);
  });

  it('a link opened in a new tab gets the token from the open tab, not the sign-in note', async () => {
    await page.goto(url.replace('#', 'flows#'));
    await page.getByRole('heading', { name: 'Flow runs' }).waitFor();
    const tab = await context.newPage();
    try {
      await tab.goto(`${new URL(url).origin}/sessions`);
      await tab.getByRole('heading', { name: 'Code sessions' }).waitFor();
      expect(await tab.evaluate("sessionStorage.getItem('neo-token')")).toBe(new URL(url).hash.slice('#token='.length));
    } finally {
      await tab.close();
    }
  });
});

describe('desktop notifications', () => {
  it('once allowed, a new approval raises a notification with its prompt', async () => {
    const tab = await context.newPage();
    // The browser's Notification, stood in for: it records what the page shows.
    await tab.addInitScript(() => {
      const shown: string[] = [];
      let permission = 'default';
      class Stub {
        static get permission() {
          return permission;
        }
        static requestPermission() {
          permission = 'granted';
          return Promise.resolve(permission);
        }
        constructor(title: string, options?: { body?: string }) {
          shown.push(`${title} | ${options?.body ?? ''}`);
        }
      }
      Object.assign(globalThis, { Notification: Stub, shownNotifications: shown });
    });
    await tab.goto(url.replace('#', 'approvals#'));
    await tab.getByTestId('notify-me').click();
    await tab.getByTestId('notify-me').waitFor({ state: 'detached' });
    // The approval is new to a page already allowed to notify (one there before is no news).
    const flow = flowRun('approval.yaml');
    try {
      const item = tab.getByTestId('inbox').locator('li[data-key="ship"]');
      await item.getByText('Ship it?').waitFor();
      await tab.waitForFunction(
        () => (globalThis as unknown as { shownNotifications: string[] }).shownNotifications.length > 0,
      );
      expect(
        await tab.evaluate(() => (globalThis as unknown as { shownNotifications: string[] }).shownNotifications),
      ).toEqual(['neo needs you | ship: Ship it?']);
      await item.getByRole('button', { name: 'Approve' }).click();
      expect((await flow).exitCode).toBe(0);
    } finally {
      await tab.close();
      flow.kill('SIGTERM');
      await flow;
    }
  });
});
