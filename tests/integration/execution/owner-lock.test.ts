/**
 * Processes that find the same stale lock at the same instant (readers of a killed run, a resume
 * beside them) never both take it: the stale file is removed only if it is still the one judged,
 * and a lock file is never seen half written.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp.js';

const CONTENDER = fileURLToPath(new URL('../../fixtures/execution/lock-contender.mjs', import.meta.url));
const CONTENDERS = 6;
const TRIALS = 25;

/** Whether two contenders held the lock at once: an `in` before the previous holder's `out`. */
function overlapped(log: string): boolean {
  let holders = 0;
  for (const line of log.trim().split('\n')) {
    if (line.startsWith('in ')) holders++;
    if (line.startsWith('out ')) holders--;
    if (holders > 1) return true;
  }
  return false;
}

describe('a stale lock taken over by racing processes', () => {
  it(
    `has one holder at a time (${TRIALS} trials of ${CONTENDERS} processes), and leaves no file aside`,
    { timeout: 120_000 },
    async () => {
      const dir = await tempDir('neo-lock-');
      const overlaps: number[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        const lock = join(dir, `lock-${trial}`);
        const log = join(dir, `log-${trial}`);
        // Held by a process that is gone (no pid is this large).
        writeFileSync(lock, JSON.stringify({ runId: 'r', pid: 4_194_999, at: 'then' }));
        const startAt = Date.now() + 400;
        await Promise.all(
          Array.from({ length: CONTENDERS }, () => execa(process.execPath, [CONTENDER, lock, log, String(startAt)])),
        );
        const lines = readFileSync(log, 'utf8');
        expect(lines).toMatch(/^in \d+$/m);
        if (overlapped(lines)) overlaps.push(trial);
      }
      expect(overlaps).toEqual([]);
      expect(readdirSync(dir).filter((name) => !/^(lock|log)-\d+$/.test(name))).toEqual([]);
    },
  );
});
