/**
 * neo memory benchmark: the code graph on a copy of this repository (git's view of it, committed
 * in a temp folder), against plain tools doing the least the same job needs, in the same run:
 *
 * - cold index (fresh database) vs `git ls-files -z | xargs -0 cat > /dev/null` (reading every file);
 * - incremental index after one changed file vs `git status --porcelain` (finding what changed);
 * - a query (find_symbol, then callers, of a random indexed name) at p95 vs `git grep -n -w <name>`;
 * - a 1,500-token map personalised by one file vs the cold-read baseline again.
 *
 * Goals (issue 26): cold ≤ 10 s, incremental ≤ 300 ms, query p95 ≤ 20 ms, map ≤ 200 ms.
 * Sizes: --reps=3 (cold and incremental), --queries=200, --maps=10.
 */
import { execFileSync, execSync, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { callers, findSymbol, indexRepository, openMemory, repoMap } from '../engine/memory/index.js';
import { median, numberArgs, percentile, report } from './harness.js';

const size = numberArgs({ reps: 3, queries: 200, maps: 10 });
const source = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(join(tmpdir(), 'neo-bench-memory-'));
const repo = join(work, 'repo');

// A copy of git's view of this repository, committed: the same files `neo memory index` reads here.
const files = execFileSync('git', ['ls-files', '-z'], { cwd: source }).toString().split('\0').filter(Boolean);
for (const file of files) {
  mkdirSync(dirname(join(repo, file)), { recursive: true });
  try {
    copyFileSync(join(source, file), join(repo, file));
  } catch {
    // Listed but deleted in the work tree.
  }
}
execFileSync('git', ['init', '-q'], { cwd: repo });
execFileSync('git', ['add', '-A'], { cwd: repo });
execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-qm', 'copy'], { cwd: repo });

const time = async (fn: () => unknown) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
const sh = (command: string) => () =>
  execSync(command, { cwd: repo, stdio: ['ignore', 'ignore', 'ignore'], shell: '/bin/sh' });
const catAll = sh('git ls-files -z | xargs -0 cat > /dev/null');

let homes = 0;
const freshMemory = () => openMemory(join(work, `home-${homes++}`), repo);

// Cold: a fresh database each time, interleaved with the baseline.
const cold: number[] = [];
const coldBase: number[] = [];
let indexed = 0;
for (let i = 0; i < size.reps; i++) {
  coldBase.push(await time(catAll));
  const memory = freshMemory();
  cold.push(
    await time(async () => {
      indexed = (await indexRepository(memory.db, repo)).parsed;
    }),
  );
  memory.db.close();
}
report({
  name: `cold index (${indexed} files)`,
  neo: median(cold) / 1000,
  baseline: median(coldBase) / 1000,
  unit: 's',
});

// Incremental: one file changed between runs, against finding what changed.
const memory = freshMemory();
await indexRepository(memory.db, repo);
const changed = 'engine/memory/database.ts';
const inc: number[] = [];
const incBase: number[] = [];
let parsed = 0;
for (let i = 0; i < Math.max(size.reps, 5); i++) {
  appendFileSync(join(repo, changed), `\n// change ${i}\n`);
  incBase.push(await time(sh('git status --porcelain')));
  inc.push(
    await time(async () => {
      parsed = (await indexRepository(memory.db, repo)).parsed;
    }),
  );
}
report({ name: `incremental index (${parsed} file parsed)`, neo: median(inc), baseline: median(incBase), unit: 'ms' });

// Queries: random defined names; find_symbol and callers each count as one query.
const names = (
  memory.db.prepare('SELECT DISTINCT name FROM symbols ORDER BY random() LIMIT ?').all(size.queries) as Array<{
    name: string;
  }>
).map((r) => r.name);
const queries: number[] = [];
for (const name of names) {
  queries.push(await time(() => findSymbol(memory.db, name)));
  queries.push(await time(() => callers(memory.db, name)));
}
const greps: number[] = [];
for (const name of names.slice(0, 30))
  greps.push(await time(() => spawnSync('git', ['grep', '-n', '-w', name], { cwd: repo, stdio: 'ignore' })));
report({ name: 'query p95', neo: percentile(queries, 95), baseline: percentile(greps, 95), unit: 'ms' });

// The map: the first pays for the derived edges (reported apart); then personalised maps.
const firstMap = await time(() => repoMap(memory.db, { tokens: 1500, focus: [changed] }));
const focusFiles = (
  memory.db.prepare('SELECT path FROM files WHERE is_test = 0 ORDER BY random() LIMIT ?').all(size.maps) as Array<{
    path: string;
  }>
).map((r) => r.path);
const maps: number[] = [];
const mapBase: number[] = [];
for (const focus of focusFiles) {
  maps.push(await time(() => repoMap(memory.db, { tokens: 1500, focus: [focus] })));
  if (mapBase.length < 3) mapBase.push(await time(catAll));
}
report({ name: '1,500-token map', neo: median(maps), baseline: median(mapBase), unit: 'ms' });
console.log(`first map after an index (derives the edges once): ${firstMap.toFixed(0)} ms`);
memory.db.close();
rmSync(work, { recursive: true, force: true });

const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'missed');
console.log(
  `memory: cold ${(median(cold) / 1000).toFixed(1)} s (≤ 10 s ${verdict(median(cold), 10_000)}), incremental ${median(inc).toFixed(0)} ms (≤ 300 ms ${verdict(median(inc), 300)}), query p95 ${percentile(queries, 95).toFixed(2)} ms (≤ 20 ms ${verdict(percentile(queries, 95), 20)}), map ${median(maps).toFixed(0)} ms (≤ 200 ms ${verdict(median(maps), 200)})`,
);
