/**
 * The web UI in a real browser (Debian's chromium, driven by playwright-core): open the URL
 * `neo serve` prints, steer a session (answer its questions, open its diff, send guidance the
 * agent acts on), watch a flow run live and approve its approval from the page. Screenshots of
 * the main pages go to test-results/web-ui/.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunningPid } from '../../engine/execution/index.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';

const CHROMIUM = process.env.NEO_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-results', 'web-ui');

const SESSION_SCRIPT = `
turns:
  - - say: Reading the code.
    - think: The loop bound looks wrong.
    - edit: { path: src/sum.js, search: "i <= xs.length", replace: "i < xs.length" }
    - write: { path: NOTES.md, content: "# Notes\\nThe loop ran one step too far.\\n" }
    - run: { command: "curl -s https://example.com/spec" }
    - say: Working offline, then. Turn one done.
  - when: { guidanceContains: "from the browser" }
    actions:
      - say: Got the guidance from the browser.
  - - say: Nothing else.
`;

const PLAN = `
name: ship-a-fix
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 3 }
steps:
  - id: fix
    brief: Fix the off-by-one in src/sum.js.
    script: fix.yaml
  - id: ship
    needs: [fix]
    approval: { prompt: "Ship the fix?" }
  - { id: announce, needs: [ship], run: 'echo shipped' }
`;
const FAILING = `
name: gate-fails
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 3 }
steps:
  - id: fix
    brief: Fix the off-by-one in src/sum.js.
    script: fix.yaml
    verify: { run: 'echo checking; uvu tests', attempts: 1 }
`;
const FIX = `turns:\n  - - edit: { path: src/sum.js, search: "i <= xs.length", replace: "i < xs.length" }\n    - say: Fixed the loop bound.\n`;
const SUM =
  'export function sum(xs) {\n  let t = 0;\n  for (let i = 0; i <= xs.length; i++) t += xs[i] ?? 0;\n  return t;\n}\n';

let server: ResultPromise | undefined;
let context: BrowserContext | undefined;
let profile: string | undefined;
let home: string;
let repo: string;
let url: string;
let page: Page;

async function git(cwd: string, ...args: string[]) {
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set NEO_CHROMIUM`,
    );
  await mkdir(SHOTS, { recursive: true });
  home = await mkdtemp(join(tmpdir(), 'neo-web-home-'));
  repo = await mkdtemp(join(tmpdir(), 'neo-web-repo-'));
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'src', 'sum.js'), SUM);
  await writeFile(join(repo, 'plan.yaml'), PLAN);
  await writeFile(join(repo, 'fix.yaml'), FIX);
  await writeFile(join(repo, 'fails.flow.yaml'), FAILING);
  await writeFile(join(home, 'session.yaml'), SESSION_SCRIPT);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'init');
  server = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0'], {
    env: { NEO_HOME: home, NO_COLOR: '1' },
    reject: false,
    buffer: false,
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void server!.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
  });
  profile = await mkdtemp(join(tmpdir(), 'neo-web-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (server !== undefined) {
    server.kill('SIGTERM');
    await server;
    expect(isRunningPid(server.pid!)).toBe(false);
  }
  if (profile) await rm(profile, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
  await rm(repo, { recursive: true, force: true });
}, 60_000);

const neo = (...args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home } });

describe('the web UI, in chromium', () => {
  it('takes the token from the URL into sessionStorage and out of the address bar', async () => {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Code sessions' }).waitFor();
    expect(page.url()).not.toContain('token');
    expect(await page.evaluate("sessionStorage.getItem('neo-token')")).toBe(url.slice(url.indexOf('#token=') + 7));
  });

  it('steers a session: answers its questions, opens its diff, sends guidance the agent acts on', async () => {
    const started = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      join(home, 'session.yaml'),
      '--brief',
      'Fix the off-by-one in sum()',
      '--max-posture',
      'default',
      '--json',
    );
    expect(started.exitCode).toBe(0);
    const id = JSON.parse(started.stdout).sessionId as string;
    const row = page.locator(`tr[data-session="${id}"]`);
    await row.waitFor();
    await page.screenshot({ path: join(SHOTS, 'sessions.png'), fullPage: true });
    await row.getByRole('link').click();
    await page.getByText('Reading the code.').waitFor();
    // Two edits ask under `default`; allow both, then deny the download with a reason.
    for (const tool of ['edit', 'write']) {
      const card = page.getByTestId('clarification').filter({ hasText: `Permission asked: ${tool}` });
      await card.getByRole('button', { name: 'Allow' }).click();
      await card.getByText('allowed').waitFor();
    }
    const fetchCard = page.getByTestId('clarification').filter({ hasText: 'curl' });
    await fetchCard.getByPlaceholder('reason (optional)').fill('stay offline');
    await fetchCard.getByRole('button', { name: 'Deny' }).click();
    await fetchCard.getByText('denied · stay offline').waitFor();
    await page.getByText('Working offline, then. Turn one done.').waitFor();
    const toolCard = page.getByTestId('tool-card').filter({ hasText: 'NOTES.md' });
    await toolCard.locator('summary').click();
    await toolCard.getByText('The loop ran one step too far.').first().waitFor();

    await page.getByTestId('open-diff').first().click();
    const diff = page.getByTestId('diff-view');
    await diff.getByText('NOTES.md').first().waitFor();
    expect(await diff.locator('.diff-files li').count()).toBe(2);
    expect(await diff.locator('.diff-files').innerText()).toMatch(/A\s+NOTES\.md\s+\+2 −0/);
    expect(await diff.locator('.diff-files').innerText()).toMatch(/M\s+src\/sum\.js\s+\+1 −1/);
    await diff.locator('.d-add', { hasText: 'i < xs.length' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'session-diff.png'), fullPage: true });

    await page.getByTestId('guidance-text').fill('A note from the browser: keep the tests as they are.');
    await page.getByTestId('guidance-send').click();
    await page.getByText('Got the guidance from the browser.').waitFor();
    await page.locator('.f-guidance.src-user', { hasText: 'A note from the browser' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'session.png'), fullPage: true });
    const stopped = await neo('session', 'stop', id, '--outcome', 'success');
    expect(stopped.exitCode).toBe(0);
    await page.getByTestId('resume').waitFor();
  });

  it('shows a flow run live and takes its approval from the page', async () => {
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.getByRole('heading', { name: 'Flow runs' }).waitFor();
    const flow = execa(process.execPath, [NEO_BIN, 'flow', 'run', 'plan.yaml'], {
      cwd: repo,
      env: { NEO_HOME: home, NO_COLOR: '1' },
      reject: false,
    });
    try {
      const row = page.locator('tr[data-run]');
      await row.first().waitFor();
      await row.first().getByRole('link').click();
      const graph = page.getByTestId('graph');
      await graph.locator('g[data-step="ship"][data-status="running"]').waitFor();
      await graph.locator('g[data-step="fix"][data-status="succeeded"]').waitFor();
      expect(await graph.locator('g[data-step]').count()).toBe(3);
      await page.getByTestId('approval').waitFor();
      await page.screenshot({ path: join(SHOTS, 'flow-run.png'), fullPage: true });
      await page.getByTestId('nav-approvals').click();
      const item = page.getByTestId('inbox').locator('li[data-key="ship"]');
      await item.getByText('Ship the fix?').waitFor();
      await page.screenshot({ path: join(SHOTS, 'approvals.png'), fullPage: true });
      await item.getByPlaceholder('reason (optional, recorded)').fill('reviewed in the browser');
      await item.getByRole('button', { name: 'Approve' }).click();
      const result = await flow;
      if (result.exitCode !== 0) console.log(result.stdout, result.stderr);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('by web');
      await page.getByText('Nothing is waiting for you.').waitFor();
      await page.getByRole('link', { name: 'Flows' }).click();
      await page.locator('tr[data-run]').first().getByRole('link').click();
      await page.getByTestId('graph').locator('g[data-step="announce"][data-status="succeeded"]').waitFor();
      await page.getByTestId('graph').locator('g[data-step="fix"]').click();
      await page.getByTestId('diff-view').getByText('src/sum.js').first().waitFor();
      await page.screenshot({ path: join(SHOTS, 'flow-done.png'), fullPage: true });
    } finally {
      flow.kill('SIGTERM');
      await flow;
    }
  });

  it("shows why a step failed: its gate's last lines and the error's hint, not only the exit code", async () => {
    const failed = await neo('flow', 'run', 'fails.flow.yaml');
    expect(failed.exitCode).toBe(3);
    const runId = /run (\S+) · flow /.exec(failed.stdout)![1]!;
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.locator(`tr[data-run="${runId}"]`).getByRole('link').click();
    await page.getByTestId('graph').locator('g[data-step="fix"][data-status="failed"]').click();
    const output = page.getByTestId('failure-output');
    await output.getByText('uvu: not found').waitFor();
    expect(await output.textContent()).toContain('gate `echo checking; uvu tests` (exit 127), 2 lines:');
    await page.screenshot({ path: join(SHOTS, 'flow-failed.png'), fullPage: true });
  });
});
