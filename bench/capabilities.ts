/**
 * Capability detection benchmark: the project profile of a repository of `files` files (default
 * 2,800) with the packaged catalog, cached (unchanged repository: one bounded read of the
 * inputs, no rule pass) and cold (no cached profile), against a baseline that only lists the
 * whole tree once (`readdir` recursive) — what any detector that walks the repository pays
 * before it matches a single rule. Goals: ≤ 20 ms cached, ≤ 300 ms cold.
 * Sizes: --files=2800 --reps=30.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildProjectProfile, catalogEntries, profilePath } from '../engine/capabilities/index.js';
import { loadDefinitions } from '../engine/definitions/index.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ files: 2800, reps: 30 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-capabilities-'));
const repo = join(root, 'repo');
const home = join(root, 'home');
for (let i = 0; i < size.files; i++) {
  const dir = join(repo, 'src', `m${i % 70}`, `d${i % 7}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
}
mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
writeFileSync(
  join(repo, '.github', 'workflows', 'ci.yml'),
  'jobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n',
);
writeFileSync(join(repo, 'package.json'), JSON.stringify({ dependencies: { stripe: '1', pg: '8' } }));
writeFileSync(join(repo, 'compose.yaml'), 'services:\n  db:\n    image: postgres:16\n');
mkdirSync(join(repo, '.git'));

const { set } = await loadDefinitions({ cwd: repo, home, noProject: true });
const catalog = catalogEntries(set);
const time = async (fn: () => Promise<unknown> | unknown) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
const walk = () => readdirSync(repo, { recursive: true }).length;

try {
  await buildProjectProfile(home, repo, catalog);
  const cached = await interleave(
    size.reps,
    () => time(() => buildProjectProfile(home, repo, catalog)),
    () => time(walk),
  );
  report({ name: `detection, cached (${size.files} files)`, neo: cached.neo, baseline: cached.baseline, unit: 'ms' });
  const cold = await interleave(
    size.reps,
    () =>
      time(async () => {
        rmSync(profilePath(home, repo), { force: true });
        await buildProjectProfile(home, repo, catalog);
      }),
    () => time(walk),
  );
  report({ name: `detection, cold (${size.files} files)`, neo: cold.neo, baseline: cold.baseline, unit: 'ms' });
  console.log(
    `capabilities: cached ${cached.neo.toFixed(2)} ms (goal ≤ 20), cold ${cold.neo.toFixed(2)} ms (goal ≤ 300), ${catalog.length} catalog entries`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
