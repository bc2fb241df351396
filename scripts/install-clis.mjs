#!/usr/bin/env node
// Installs the real coding CLIs the conformance suite (`npm run test:clis`) drives, at exact pinned
// versions, into .neo-cache/clis/<id>/ — outside the project's own dependencies, one npm prefix
// per CLI so one broken package cannot spoil the others. Writes .neo-cache/clis/manifest.json
// ({ id: { status: 'installed', bin, version } | { status: 'skipped', reason } }) for the tests.
// A CLI that cannot be installed is reported as SKIPPED with the reason, loudly; the others still
// install and the script exits 0. `--only claude,codex` limits the set; `--force` reinstalls.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_CACHE = process.env.NEO_CLI_CACHE ?? join(root, '.neo-cache', 'clis');
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** The pinned CLIs. `extra` packages work around broken optional dependencies (see each note). */
export const CLIS = [
  { id: 'claude', package: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  { id: 'codex', package: '@openai/codex', version: '0.171.0', bin: 'codex' },
  { id: 'opencode', package: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  { id: 'copilot', package: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  // @factory/cli 0.225.1 names @factory/cli-linux-x64@0.225.1 as its optional dependency, which
  // was never published; 0.225.2 of the platform package is, and the wrapper finds it.
  // Gemini CLI 0.61 declares engines node >=20; it is plain JavaScript (no native binary).
  { id: 'gemini', package: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  {
    id: 'droid',
    package: '@factory/cli',
    version: '0.225.1',
    bin: 'droid',
    extra: { 'linux-x64': ['@factory/cli-linux-x64@0.225.2'] },
  },
];

function run(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      resolve({ ok: error === null, code: error?.code ?? 0, stdout: String(stdout), stderr: String(stderr), error });
    });
  });
}

function lastLines(text, n = 6) {
  return text.trim().split('\n').slice(-n).join(' | ');
}

/** `<bin> --version` with a throwaway HOME: a first run writes state folders into HOME. */
async function probeVersion(bin, dir) {
  const home = join(dir, 'probe-home');
  await mkdir(home, { recursive: true });
  const result = await run(bin, ['--version'], {
    timeout: 60_000,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      CODEX_HOME: join(home, '.codex'),
      COPILOT_HOME: join(home, '.copilot'),
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      DISABLE_AUTOUPDATER: '1',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_OFFLINE: 'true',
    },
  });
  if (!result.ok)
    return {
      ok: false,
      reason: `\`${bin} --version\` failed: ${lastLines(result.stderr || result.stdout || String(result.error))}`,
    };
  return { ok: true, version: result.stdout.trim().split('\n')[0] };
}

async function installOne(cli, force) {
  const dir = join(CLI_CACHE, cli.id);
  const bin = join(dir, 'node_modules', '.bin', cli.bin);
  const stamp = join(dir, 'installed.json');
  const spec = `${cli.package}@${cli.version}`;
  const extra = cli.extra?.[`${platform()}-${arch()}`] ?? [];
  const wanted = [spec, ...extra];
  if (!force && existsSync(stamp) && existsSync(bin)) {
    const previous = JSON.parse(await readFile(stamp, 'utf8'));
    if (JSON.stringify(previous.packages) === JSON.stringify(wanted)) {
      const probe = await probeVersion(bin, dir);
      if (probe.ok) return { status: 'installed', bin, version: probe.version, package: spec, cached: true };
    }
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `neo-cli-${cli.id}`, private: true }, null, 2));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = await run(
    npm,
    ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', ...wanted],
    { timeout: INSTALL_TIMEOUT_MS, cwd: dir },
  );
  if (!install.ok)
    return {
      status: 'skipped',
      package: spec,
      reason: `npm install ${wanted.join(' ')} failed: ${lastLines(install.stderr || String(install.error))}`,
    };
  if (!existsSync(bin))
    return { status: 'skipped', package: spec, reason: `installed, but ${cli.bin} is not in node_modules/.bin` };
  const probe = await probeVersion(bin, dir);
  if (!probe.ok) return { status: 'skipped', package: spec, reason: probe.reason };
  await writeFile(stamp, JSON.stringify({ packages: wanted }, null, 2));
  return { status: 'installed', bin, version: probe.version, package: spec, cached: false };
}

async function main() {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const onlyIndex = args.indexOf('--only');
  const only =
    onlyIndex >= 0
      ? String(args[onlyIndex + 1] ?? '')
          .split(',')
          .filter(Boolean)
      : process.env.NEO_CLIS
        ? process.env.NEO_CLIS.split(',').filter(Boolean)
        : undefined;
  const selected = CLIS.filter((cli) => only === undefined || only.includes(cli.id));
  await mkdir(CLI_CACHE, { recursive: true });
  const started = Date.now();
  const results = await Promise.all(
    selected.map(async (cli) => [
      cli.id,
      await installOne(cli, force).catch((error) => ({
        status: 'skipped',
        package: `${cli.package}@${cli.version}`,
        reason: String(error?.message ?? error),
      })),
    ]),
  );
  // A partial install (--only) keeps the other CLIs' entries: the manifest describes the cache.
  const manifestPath = join(CLI_CACHE, 'manifest.json');
  const previous = existsSync(manifestPath) ? JSON.parse(await readFile(manifestPath, 'utf8')) : {};
  const manifest = { ...previous, ...Object.fromEntries(results) };
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [id, result] of results) {
    if (result.status === 'installed')
      console.log(`installed ${id.padEnd(8)} ${result.package} → ${result.version}${result.cached ? ' (cached)' : ''}`);
    else console.error(`\n*** SKIPPED ${id}: ${result.package} could not be installed\n*** reason: ${result.reason}\n`);
  }
  const skipped = results.filter(([, r]) => r.status !== 'installed').length;
  console.log(
    `${results.length - skipped} of ${results.length} CLIs ready in ${CLI_CACHE} (${((Date.now() - started) / 1000).toFixed(1)} s)${skipped > 0 ? `; ${skipped} SKIPPED` : ''}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
