/**
 * A one-step flow around a real CLI turn vs the same CLI run directly, in the same run
 * (interleaved, medians): Codex (`codex exec --json`) against `neo flow run` of a one-step agent
 * flow on the codex backend, both answered by `neo model serve` with one scripted text turn.
 * The figure is neo's added time (goal ≤ +150 ms) and the ratio. In the same rounds, `codex exec`
 * given neo's memory MCP server (as every agent step provisions it once the repository has a
 * memory: the warm-up run makes one) says how much of the added time is Codex starting that
 * server and waiting for it before its first request, and how much is neo's own. Needs the CLI that
 * `node scripts/install-clis.mjs --only codex` installs (or NEO_CODEX_BIN); skips without it.
 * Sizes: --reps=5
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { neoBinPath, packageRoot } from '../engine/util/package-root.js';
import { median, numberArgs, report } from './harness.js';

const size = numberArgs({ reps: 5 });
const BIN = process.env.NEO_BENCH_BIN ?? neoBinPath();
const manifest = join(process.env.NEO_CLI_CACHE ?? join(packageRoot(), '.neo-cache', 'clis'), 'manifest.json');
const codex =
  process.env.NEO_CODEX_BIN ??
  (existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { bin?: string } | undefined>).codex?.bin
    : undefined);
if (codex === undefined || !existsSync(codex)) {
  console.log('cli-turn: skipped: no codex installed (node scripts/install-clis.mjs --only codex, or NEO_CODEX_BIN)');
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'neo-bench-cli-turn-'));
const home = join(root, 'home');
const repo = join(root, 'repo');
mkdirSync(join(home, '.codex'), { recursive: true });
mkdirSync(join(root, 'tmp'));
mkdirSync(repo);
writeFileSync(join(root, 'turn.yaml'), 'aux: { text: Scripted title }\nturns:\n  - text: Done.\n    times: always\n');
writeFileSync(
  join(repo, 'plan.yaml'),
  'name: one\nworkspace: { isolation: inplace }\ndefaults: { backend: codex, maxPosture: acceptEdits }\nsteps:\n  - id: a\n    brief: say done\n    requireChange: false\n    model: gpt-5.5\n',
);
writeFileSync(join(repo, 'README.md'), '# bench\n');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'bench');

// Only PATH of the real environment: the CLI reads its own config home, never the user's.
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  TMPDIR: join(root, 'tmp'),
  NEO_HOME: join(root, 'neo-home'),
  NO_COLOR: '1',
  CODEX_HOME: join(home, '.codex'),
  NEO_MODEL_API_KEY: 'neo-scripted',
  NEO_CODEX_BIN: codex,
};
// The server's log gives each run's model request: the time after it is the turn's tail (the
// settle, the release, the net diff, the run's end), apart from every start-up before it.
const requests = join(root, 'requests.jsonl');
const server = spawn(
  process.execPath,
  [BIN, 'model', 'serve', '--script', join(root, 'turn.yaml'), '--json', '--quiet', '--log', requests],
  {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  },
);
try {
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]!) as { url: string }).url);
    });
    server.once('exit', (code) => reject(new Error(`neo model serve exited ${code}`)));
  });
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "neo"',
      'check_for_update_on_startup = false',
      '[model_providers.neo]',
      'name = "neo model server"',
      `base_url = "${url}/v1"`,
      'env_key = "NEO_MODEL_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '[analytics]',
      'enabled = false',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'apps = false',
      'api_key_model_discovery = false',
      '',
    ].join('\n'),
  );
  const tails: Record<'neo' | 'direct', number[]> = { neo: [], direct: [] };
  const lastRequestAt = () =>
    Date.parse((JSON.parse(readFileSync(requests, 'utf8').trimEnd().split('\n').at(-1)!) as { time: string }).time);
  const timed = (file: string, args: string[], tail?: number[]): number => {
    const started = performance.now();
    const result = spawnSync(file, args, { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (result.status !== 0)
      throw new Error(`${file} ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
    tail?.push(Date.now() - lastRequestAt());
    return performance.now() - started;
  };
  const exec = ['exec', '--json', '--skip-git-repo-check', '-m', 'gpt-5.5', 'say done'];
  // The server as neo provisions it (engine/capabilities/this-neo.ts): this neo, `memory mcp`.
  const memoryServer = `mcp_servers.neo-memory={command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(BIN)}, "memory", "mcp"], env = {NEO_HOME = ${JSON.stringify(env.NEO_HOME)}}}`;
  const variants = {
    neo: () => timed(process.execPath, [BIN, 'flow', 'run', 'plan.yaml'], tails.neo),
    direct: () => timed(codex, exec, tails.direct),
    withServer: () => timed(codex, ['-c', memoryServer, ...exec]),
  };
  // The warm-up run records the step's decision: from then on the repository has a memory.
  for (const run of Object.values(variants)) run();
  tails.neo.length = tails.direct.length = 0;
  console.log(`cli-turn: ${codex}; load average ${loadavg()[0]!.toFixed(2)}`);
  const times: Record<keyof typeof variants, number[]> = { neo: [], direct: [], withServer: [] };
  const names = Object.keys(variants) as Array<keyof typeof variants>;
  for (let i = 0; i < size.reps; i++) {
    // Interleaved, each round in another order: a load that drifts lands on all three alike.
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      times[name].push(variants[name]());
    }
  }
  const [neo, direct, withServer] = [median(times.neo), median(times.direct), median(times.withServer)];
  report({ name: 'one-step flow around a Codex turn vs codex exec directly', neo, baseline: direct, unit: 'ms' });
  const added = neo - direct;
  console.log(
    `cli-turn: neo adds ${added.toFixed(0)} ms (goal ≤ 150) ${added <= 150 ? 'ok' : 'MISSED'}; load average after ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(
    `cli-turn: codex exec given neo's memory server ${withServer.toFixed(0)} ms: ${(withServer - direct).toFixed(0)} ms of the added time is Codex starting it and waiting for it, ${(neo - withServer).toFixed(0)} ms is neo's own`,
  );
  console.log(
    `cli-turn: after the model request (the turn's end, the settle, the release, the net diff, the run's end): codex exec ${median(tails.direct).toFixed(0)} ms, neo ${median(tails.neo).toFixed(0)} ms`,
  );
} finally {
  server.kill('SIGINT');
  rmSync(root, { recursive: true, force: true });
}
