/**
 * The e2e leak harness, for every test file under tests/e2e and the real-CLI suite (tests/clis,
 * vitest.clis.config.ts): after each test (and its own
 * cleanup), no process the test started still runs, no run it made is left `running`, and every
 * events file it wrote is gapless. After the file's last test, the same for what its `beforeAll`
 * started. What is found is killed, so it never outlives the suite, and fails the test.
 */
import { afterAll, afterEach, beforeEach, expect } from 'vitest';
import { leftProcesses, leftRecords, runningNow, takeNoted, type LeakCheck } from '../helpers/leaks.js';
import { removeTempDirs, tempDirsNow } from '../helpers/temp.js';

/** How long processes get to finish exiting after the test's own cleanup. */
const EXIT_GRACE_MS = 5_000;

const testPath = expect.getState().testPath ?? '';
const active = testPath.includes('/tests/e2e/') || testPath.includes('/tests/clis/');
const beforeFile = active ? runningNow() : new Set<string>();
let beforeTest = new Set<string>();
let fileFolders: string[] | undefined;
const everyRoot = new Set<string>();

beforeEach(() => {
  if (!active) return;
  // What was noted before the first test, a `beforeAll`'s folders, is checked after the last.
  fileFolders ??= takeNoted().folders;
  beforeTest = runningNow();
});

// Registered before the test file's own hooks, so it runs after them (hooks unwind as a stack).
afterEach(async () => {
  if (!active) return;
  const noted = takeNoted();
  const roots = [...tempDirsNow(), ...noted.folders];
  for (const root of roots) everyRoot.add(root);
  try {
    await check({ roots, before: beforeTest, allowedRuns: noted.allowedRuns }, { records: true });
  } finally {
    // Only now may the test's folders go (a failing hook would skip the cleanup hook after it).
    await removeTempDirs();
  }
});

afterAll(async () => {
  if (!active) return;
  const folders = [...(fileFolders ?? []), ...takeNoted().folders];
  for (const folder of folders) everyRoot.add(folder);
  await check({ roots: [...everyRoot], before: beforeFile }, { records: false });
  await check({ roots: folders, before: beforeFile }, { records: true });
});

async function check(leak: LeakCheck, options: { records: boolean }): Promise<void> {
  const deadline = Date.now() + EXIT_GRACE_MS;
  let alive = leftProcesses(leak);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = leftProcesses(leak);
  }
  const problems = alive.map(({ pid, what }) => `process ${pid} still runs: ${what}`);
  for (const { pid } of alive) {
    try {
      process.kill(pid, 'SIGKILL'); // never let it outlive the suite
    } catch {
      // gone meanwhile
    }
  }
  if (options.records) problems.push(...leftRecords(leak));
  if (problems.length > 0) throw new Error(`the test left things behind:\n  ${problems.join('\n  ')}`);
}
