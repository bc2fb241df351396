/**
 * The browser-test harness: a built `neo serve` on a free port with its own NEO_HOME, and
 * Debian's chromium driven by playwright-core. Each test file starts one and stops it after.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { NEO_BIN } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';

export const CHROMIUM = process.env.NEO_CHROMIUM ?? '/usr/bin/chromium';

/** `neo serve --port 0` for `home`; resolves with its printed URL (token in the fragment). */
export async function startServe(home: string, port = '0'): Promise<{ server: ResultPromise; url: string }> {
  watchFolder(home);
  const server = execa(process.execPath, [NEO_BIN, 'serve', '--port', port], {
    env: { NEO_HOME: home, NO_COLOR: '1' },
    reject: false,
    buffer: false,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void server.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
  });
  return { server, url };
}

/** A headless chromium with a fresh profile. */
export async function openBrowser(): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set NEO_CHROMIUM`,
    );
  const profile = await mkdtemp(join(tmpdir(), 'neo-web-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
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
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Stops a server started by {@link startServe} and waits for it. */
export async function stopServe(server: ResultPromise | undefined): Promise<void> {
  if (server === undefined) return;
  server.kill('SIGTERM');
  await server;
}
