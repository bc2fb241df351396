/**
 * The checklist neo's agent keeps with its workflow tool, on the web session page (chromium over
 * `neo serve`): a session on the scripted model server adds two items and checks one; the page
 * shows both, the first checked.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunningPid } from '../../engine/execution/index.js';
import { NEO_BIN } from '../helpers/cli.js';
import { agentProject, type AgentProject } from './neo-agent-helpers.js';

const CHROMIUM = process.env.NEO_CHROMIUM ?? '/usr/bin/chromium';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('the web session page', () => {
  it("shows neo's agent's checklist", async () => {
    expect(existsSync(CHROMIUM), `no chromium at ${CHROMIUM}`).toBe(true);
    const project: AgentProject = await agentProject([
      {
        when: { user: 'plan it' },
        tools: [
          { name: 'workflow', arguments: { action: 'add', items: ['read the code', 'fix the bug'] } },
          { name: 'workflow', arguments: { action: 'check', id: 1 } },
        ],
      },
      { text: 'planned' },
    ]);
    cleanups.push(() => project.close());
    const serve: ResultPromise = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0'], {
      env: { ...project.env, NO_COLOR: '1' },
      cwd: project.repo,
      reject: false,
      buffer: false,
    });
    cleanups.push(async () => {
      serve.kill('SIGTERM');
      await serve;
      expect(isRunningPid(serve.pid!)).toBe(false);
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      void serve.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
    });
    const { sessionId } = await project.json<{ sessionId: string }>([
      'session',
      'start',
      '--backend',
      'neo',
      '--max-posture',
      'plan',
      '--brief',
      'plan it',
    ]);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({ text: 'planned' });

    const profile = await mkdtemp(join(tmpdir(), 'neo-web-profile-'));
    cleanups.push(() => rm(profile, { recursive: true, force: true }));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    cleanups.push(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
    await page.goto(url);
    const row = page.locator(`tr[data-session="${sessionId}"]`);
    await row.getByRole('link').click();
    const list = page.getByTestId('checklist');
    await list.waitFor();
    expect(await list.locator('li').allTextContents()).toEqual(
      ['1. read the code', '2. fix the bug'].map((t) => ` ${t}`),
    );
    expect(await list.locator('li[data-done="true"]').count()).toBe(1);
    expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);
  });
});
