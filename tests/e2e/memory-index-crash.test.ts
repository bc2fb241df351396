/**
 * The code graph is safe against `kill -9` mid-index and against two indexers at once: the
 * database stays intact, a re-index finishes the job, and every file ends with exactly its own
 * rows (no file twice, no definition twice).
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../engine/memory/index.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const FILES = 600;

async function bigRepo() {
  const root = await tempDir('neo-e2e-index-crash-');
  const repo = join(root, 'repo');
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++)
    files[`src/m${i}.ts`] = [
      `import { f${(i + 1) % FILES} } from './m${(i + 1) % FILES}.js';`,
      ...Array.from({ length: 40 }, (_, j) => `export function f${i}_${j}(x: number): number { return x + ${j}; }`),
      `export function f${i}(x: number): number { return f${(i + 1) % FILES}(x); }`,
    ].join('\n');
  await writeTree(repo, files);
  await git(repo, 'init', '-q');
  return { repo, home: join(root, 'home') };
}

function graphState(home: string, repo: string) {
  const { db } = openMemory(home, repo);
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      files: (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n,
      perFile: db.prepare('SELECT count(*) AS n FROM symbols GROUP BY file_id HAVING n != 41').all().length,
      mains: db
        .prepare(
          "SELECT count(DISTINCT name) AS n, count(*) AS rows FROM symbols WHERE name NOT LIKE '%\\_%' ESCAPE '\\'",
        )
        .get() as {
        n: number;
        rows: number;
      },
    };
  } finally {
    db.close();
  }
}

describe('the code graph under kill -9 and concurrent indexers', () => {
  it('a killed index leaves an intact database that the next index completes', async () => {
    const { repo, home } = await bigRepo();
    const env = { NO_COLOR: '1', NEO_HOME: home };
    const child = execa(process.execPath, [NEO_BIN, 'memory', 'index'], { cwd: repo, env, reject: false });
    // Kill it once some files are in (a batch committed) and before it says it is done.
    let seen = 0;
    for (let i = 0; i < 2000 && seen === 0 && child.exitCode === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        seen = graphState(home, repo).files;
      } catch {
        seen = 0; // Not created yet.
      }
    }
    child.kill('SIGKILL');
    await child;
    const killed = graphState(home, repo);
    expect(killed.integrity).toBe('ok');
    // Killed mid-index: some batches in, not all.
    expect(killed.files).toBeGreaterThan(0);
    expect(killed.files).toBeLessThan(FILES);
    expect(killed.perFile).toBe(0);

    const after = await runNeo(['memory', 'index', '--json'], { cwd: repo, env });
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).parsed).toBe(FILES - killed.files);
    expect(graphState(home, repo)).toEqual({
      integrity: 'ok',
      files: FILES,
      perFile: 0,
      mains: { n: FILES, rows: FILES },
    });
  });

  it('two indexers at once end with one copy of everything', async () => {
    const { repo, home } = await bigRepo();
    const env = { NEO_HOME: home };
    const [a, b] = await Promise.all([
      runNeo(['memory', 'index', '--json'], { cwd: repo, env }),
      runNeo(['memory', 'index', '--json'], { cwd: repo, env }),
    ]);
    expect([a.exitCode, b.exitCode], a.stderr + b.stderr).toEqual([0, 0]);
    expect(graphState(home, repo)).toEqual({
      integrity: 'ok',
      files: FILES,
      perFile: 0,
      mains: { n: FILES, rows: FILES },
    });
  });
});
