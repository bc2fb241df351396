/**
 * The decision store survives `kill -9` mid-write: after a writer is killed at a random point,
 * the database passes SQLite's integrity check, holds every decision whose commit the writer
 * acknowledged, and each decision is whole (its files and its full-text row with it, or none).
 */
import { execa } from 'execa';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openMemory, queryDecisions } from '../../../engine/memory/index.js';
import { tempDir } from '../../helpers/temp.js';

const WRITER = fileURLToPath(new URL('../../fixtures/memory/writer.mjs', import.meta.url));
const TRIALS = 6;

async function killAfter(home: string, repo: string, acks: number): Promise<number> {
  const child = execa(process.execPath, [WRITER, home, repo], { reject: false, buffer: false, stdin: 'ignore' });
  let last = 0;
  await new Promise<void>((resolve) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        last = Number(line.split(' ')[1]);
        if (last >= acks) {
          child.kill('SIGKILL');
          resolve();
        }
      }
    });
  });
  const result = await child;
  expect(result.signal).toBe('SIGKILL');
  return last;
}

describe('the decision store under kill -9', () => {
  it('keeps every acknowledged decision whole, and nothing torn', async () => {
    const root = await tempDir('neo-memory-kill-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await mkdir(join(repo, '.git'), { recursive: true });
    let acknowledged = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      // Each trial writes on top of the last one's database: recovery is what is tested.
      acknowledged = await killAfter(home, repo, acknowledged + 20 + Math.floor(Math.random() * 200));
      const { db } = openMemory(home, repo);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const decisions = queryDecisions(db, { limit: 1000 });
        const ids = new Set(decisions.map((d) => d.id));
        for (let id = 1; id <= acknowledged; id++) expect(ids.has(id), `decision ${id}`).toBe(true);
        for (const d of decisions) expect(d.files, `decision ${d.id}`).toHaveLength(2);
        const fts = db.prepare('SELECT count(*) AS n FROM decisions_fts').get() as { n: number };
        expect(fts.n).toBe(decisions.length);
        db.exec("INSERT INTO decisions_fts(decisions_fts) VALUES('integrity-check')");
      } finally {
        db.close();
      }
    }
  });
});
