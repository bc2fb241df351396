/**
 * Definitions benchmarks (issue: definitions as data):
 *  1. load + validate + resolve a generated tree vs bare read + YAML parse + ajv validate;
 *  2. hot reload latency (edit → new set) vs chokidar's raw event latency for the same edits;
 *  3. `neo validate` cold start on the packaged definitions vs `node -e 0`.
 * Sizes: --personas=1000 --flows=200 --backends=50 --edits=50 --reps=5
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { watch } from 'chokidar';
import { parse } from 'yaml';
import { loadDefinitions, watchDefinitions, type ReloadEvent } from '../engine/definitions/index.js';
import { neoBinPath } from '../engine/util/package-root.js';
import { precompiledValidators } from '../engine/definitions/schema-check.js';
import { interleave, median, numberArgs, percentile, report } from './harness.js';

const size = numberArgs({ personas: 1000, flows: 200, backends: 50, edits: 50, reps: 5 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-defs-'));
const tree = join(root, 'tree');
const home = join(root, 'home');
mkdirSync(home);

function generateTree(): Array<{ file: string; kind: 'persona' | 'flow' | 'backend' | 'capability' }> {
  const files: Array<{ file: string; kind: 'persona' | 'flow' | 'backend' | 'capability' }> = [];
  const put = (rel: string, text: string, kind: (typeof files)[number]['kind']) => {
    const file = join(tree, rel);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    files.push({ file, kind });
  };
  for (let i = 0; i < size.backends; i++) {
    put(
      `definitions/backends/b${i}.yaml`,
      `description: backend ${i}\nprotocol: acp\ncommand: { bin: agent${i}, args: [--acp] }\npostureMap:\n  plan: { mode: plan }\n  default: { mode: default }\n  acceptEdits: { mode: edits }\nclarifySupport: true\ngranularity: stream\nhonorsAllowedTools: false\ncostProfile: metered\nmodelSelection: per-session\nmodelClassMap: { cheap: m-small, standard: m, frontier: m-large }\neditToolNames: [edit, write]\n`,
      'backend',
    );
    put(
      `definitions/capabilities/c${i}.yaml`,
      `description: capability ${i}\ntrustTier: T1\nsource: { kind: npm, package: pkg${i}, version: 1.2.${i} }\ndetect:\n  - packageDep: pkg${i}\n  - fileExists: conf${i}.json\nprovides:\n  instructions: Use pkg${i} carefully.\n`,
      'capability',
    );
  }
  for (let i = 0; i < size.personas; i++) {
    put(
      `personas/p${i}.md`,
      `---\ndescription: persona number ${i} that reviews and edits code\ntools: Read, Grep, Glob, Edit\nmodel: standard\nmaxPosture: acceptEdits\nmaxRounds: ${(i % 9) + 1}\nbackend: b${i % size.backends}\ntaskTags: [t${i % 7}]\n---\nYou are persona ${i}. Read carefully, change little, test everything.\n`,
      'persona',
    );
  }
  for (let i = 0; i < size.flows; i++) {
    put(
      `flows/f${i}.yaml`,
      `name: f${i}\ninputs:\n  target: { default: "npm test" }\nsteps:\n  - id: build\n    run: npm run build\n  - id: fix\n    needs: [build]\n    persona: p${i % size.personas}\n    brief: "Make \${{ inputs.target }} pass; build said \${{ steps.build.outputs.stdout }}"\n    verify: { run: npm test, attempts: 2 }\n  - id: review\n    needs: [fix]\n    persona: p${(i + 1) % size.personas}\n    posture: plan\n    if: \${{ steps.fix.outputs.verdict == 'success' }}\n`,
      'flow',
    );
  }
  return files;
}

const validators = precompiledValidators();
const VALIDATOR: Record<string, (v: unknown) => boolean> = {
  persona: validators.Persona!,
  flow: validators.Flow!,
  backend: validators.Backend!,
  capability: validators.Capability!,
};

async function baselineLoad(files: ReturnType<typeof generateTree>): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    files.map(async ({ file, kind }) => {
      let text = await readFile(file, 'utf8');
      if (kind === 'persona') text = text.slice(4, text.indexOf('\n---', 4));
      VALIDATOR[kind]!(parse(text));
    }),
  );
  return performance.now() - t0;
}

async function neoLoad(): Promise<number> {
  const t0 = performance.now();
  const { set, diagnostics } = await loadDefinitions({
    packaged: tree,
    home,
    noProject: true,
    paths: [join(tree, 'flows')],
  });
  const elapsed = performance.now() - t0;
  if (set.list('flow').length !== size.flows) throw new Error('flows were not loaded');
  if (diagnostics.some((d) => d.severity === 'error'))
    throw new Error(`generated tree has errors: ${diagnostics[0]!.message}`);
  return elapsed;
}

async function hotReload(): Promise<{ neo: number[]; raw: number[] }> {
  const { set, diagnostics, loader } = await loadDefinitions({
    packaged: tree,
    home,
    noProject: true,
    paths: [join(tree, 'flows')],
  });
  const file = join(tree, 'personas', 'p0.md');
  const original = readFileSync(file, 'utf8');
  let pendingNeo: ((t: number) => void) | undefined;
  let pendingRaw: ((t: number) => void) | undefined;
  const watcher = await watchDefinitions(loader, { set, diagnostics }, (event: ReloadEvent) => {
    if (event.type === 'reloaded') pendingNeo?.(performance.now());
  });
  const raw = watch(join(tree, 'personas'), { ignoreInitial: true, depth: 0 });
  raw.on('change', () => pendingRaw?.(performance.now()));
  await Promise.all([watcher.ready, new Promise<void>((r) => raw.once('ready', () => r()))]);
  const neoTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 0; i < size.edits; i++) {
    const neoDone = new Promise<number>((r) => (pendingNeo = r));
    const rawDone = new Promise<number>((r) => (pendingRaw = r));
    const t0 = performance.now();
    writeFileSync(file, original.replace('Read carefully', `Read carefully (edit ${i})`));
    const [tNeo, tRaw] = await Promise.all([neoDone, rawDone]);
    neoTimes.push(tNeo - t0);
    rawTimes.push(tRaw - t0);
    // chokidar throttles repeated changes of one file for 50 ms; stay clear of that window.
    await new Promise((r) => setTimeout(r, 120));
  }
  await watcher.close();
  await raw.close();
  return { neo: neoTimes, raw: rawTimes };
}

function coldStart(): { neo: number; baseline: number } {
  const bin = neoBinPath();
  const cwd = mkdtempSync(join(tmpdir(), 'neo-bench-cwd-'));
  const env = { ...process.env, NEO_HOME: home, NO_COLOR: '1' };
  const time = (args: string[]) => {
    const t0 = performance.now();
    execFileSync(process.execPath, args, { cwd, env, stdio: 'ignore' });
    return performance.now() - t0;
  };
  time([bin, 'validate']);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < size.reps * 4; i++) {
    a.push(time([bin, 'validate']));
    b.push(time(['-e', '0']));
  }
  rmSync(cwd, { recursive: true, force: true });
  return { neo: median(a), baseline: median(b) };
}

const files = generateTree();
await neoLoad();
await baselineLoad(files);
const load = await interleave(size.reps, neoLoad, () => baselineLoad(files));
const lines = [
  report({ name: `load+validate+resolve ${files.length} files`, neo: load.neo, baseline: load.baseline, unit: 'ms' }),
];
const reload = await hotReload();
const p50 = median(reload.neo);
const raw50 = median(reload.raw);
lines.push(report({ name: 'hot reload p50 (edit → new set)', neo: p50, baseline: raw50, unit: 'ms' }));
lines.push(
  report({
    name: 'hot reload p95 (edit → new set)',
    neo: percentile(reload.neo, 95),
    baseline: percentile(reload.raw, 95),
    unit: 'ms',
  }),
);
const cold = coldStart();
lines.push(
  report({ name: '`neo validate` cold start (packaged)', neo: cold.neo, baseline: cold.baseline, unit: 'ms' }),
);
console.log(
  `summary: load ratio ${(load.neo / load.baseline).toFixed(2)} (goal ≤ 1.5) · hot reload adds ${(p50 - raw50).toFixed(1)} ms at p50 (goal ≤ 20) · cold start ratio ${(cold.neo / cold.baseline).toFixed(2)} (goal ≤ 2.5)`,
);
rmSync(root, { recursive: true, force: true });
