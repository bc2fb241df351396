/**
 * A Go or Rust project's gate runs confined and offline: its module cache or crate registry and
 * its toolchain, which live under the home every sandbox hides, are lent read-only (GOMODCACHE,
 * CARGO_HOME, RUSTUP_HOME told, GOPROXY=off, CARGO_NET_OFFLINE), never the home itself. Each
 * project has a real dependency in its cache, made here offline: a Go module served from a
 * file proxy, a Rust crate from a local git repository. The flow `neo init` writes fixes a broken
 * function on the script backend under bwrap, its gate the project's own test command; the
 * agent's own commands build too, and nothing confined writes the cache.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const FLOW = join('.neo', 'flows', 'check-and-fix.flow.yaml');
const has = async (program: string) => (await execa(program, ['--version'], { reject: false })).exitCode === 0;
const BWRAP = (await execa('bwrap', ['--ro-bind', '/', '/', 'true'], { reject: false })).exitCode === 0;
const GO = (await execa('go', ['version'], { reject: false })).exitCode === 0;
const CARGO = await has('cargo');

/**
 * A committed repository under `root`, its flow from `neo init` turned to the script backend:
 * the agent runs `commands` (each allowed by a rule; a `touch` is expected to be refused), then
 * makes `edit`.
 */
async function initAndScript(
  root: string,
  files: Record<string, string>,
  env: Record<string, string>,
  commands: string[][],
  edit: { path: string; search: string; replace: string },
) {
  const repo = join(root, 'repo');
  await writeTree(repo, files);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) =>
    runNeo(args, {
      cwd: repo,
      env: { NEO_HOME: join(root, 'neo'), NEO_CLAUDE_CODE_BIN: '', ...env },
      timeout: 240_000,
    });
  const init = await neo(['init']);
  expect(init.exitCode, init.stdout + init.stderr).toBe(0);
  const flow = readFileSync(join(repo, FLOW), 'utf8');
  expect(flow).toMatch(/^sandbox: bwrap$/m);
  const allow = JSON.stringify(commands.map((argv) => argv.join(' ')));
  writeFileSync(
    join(repo, FLOW),
    flow
      .replace(/backend: \S+/, 'backend: script')
      .replace('    verify:', `    script: scripts/fix.yaml\n    allowCommands: ${allow}\n    verify:`),
  );
  const actions = [
    ...commands.map(
      (argv) => `{ run: { command: ${JSON.stringify(argv)}, expectExit: ${argv[0] === 'touch' ? 1 : 0} } }`,
    ),
    `{ edit: ${JSON.stringify(edit)} }`,
  ];
  mkdirSync(join(repo, '.neo', 'flows', 'scripts'));
  writeFileSync(join(repo, '.neo', 'flows', 'scripts', 'fix.yaml'), `turns:\n  - [${actions.join(', ')}]\n`);
  return { repo, neo, init, flow };
}

describe.skipIf(!BWRAP || !GO)('a Go module', () => {
  it('`go test ./...` gates a fix under bwrap, offline, on the lent module cache', async () => {
    const root = await tempDir('neo-e2e-go-');
    const home = join(root, 'home');
    const proxy = join(root, 'proxy');
    await goProxy(proxy, 'example.com/greet', 'v1.0.0', {
      'go.mod': 'module example.com/greet\n\ngo 1.19\n',
      'greet.go': 'package greet\n\nfunc Hello() string { return "hello" }\n',
    });
    const env = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const files = {
      'go.mod': 'module example.com/m\n\ngo 1.19\n\nrequire example.com/greet v1.0.0\n',
      'm.go': 'package m\n\nimport "example.com/greet"\n\nfunc Greet() string { return greet.Hello() + "?" }\n',
      'm_test.go':
        'package m\n\nimport "testing"\n\nfunc TestGreet(t *testing.T) {\n\tif Greet() != "hello!" {\n\t\tt.Fatal(Greet())\n\t}\n}\n',
    };
    // The module cache, filled on the host from the file proxy (as `go mod download` would from the network).
    const scratch = join(root, 'fill');
    await writeTree(scratch, files);
    const hostGo = { ...process.env, ...env, GOPROXY: `file://${proxy}`, GOSUMDB: 'off', GOFLAGS: '-mod=mod' };
    await execa('go', ['mod', 'download', 'example.com/greet'], { cwd: scratch, env: hostGo });
    await execa('go', ['mod', 'tidy'], { cwd: scratch, env: hostGo });
    const modcache = join(home, 'go', 'pkg', 'mod');
    expect(existsSync(join(modcache, 'example.com', 'greet@v1.0.0', 'greet.go'))).toBe(true);
    const { repo, neo, init } = await initAndScript(
      root,
      { ...files, 'go.sum': readFileSync(join(scratch, 'go.sum'), 'utf8') },
      env,
      [
        ['go', 'test', '-c', '-o', 'm.test', '.'],
        ['touch', join(modcache, 'poison')],
      ],
      { path: 'm.go', search: '"?"', replace: '"!"' },
    );
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(init.stdout).toContain(
      'note: the module cache (GOMODCACHE) and a Go install under your home are lent read-only',
    );
    expect(run.stdout).toContain('gate `go test ./...` passed (attempt 1/3)');
    const workspace = /workspace: (\S+)/.exec(run.stdout)![1]!;
    // The agent's own build found the module too; its write into the cache was refused.
    expect(existsSync(join(workspace, 'm.test'))).toBe(true);
    expect(existsSync(join(modcache, 'poison'))).toBe(false);
    expect(readFileSync(join(repo, 'm.go'), 'utf8')).toContain('"?"');
  }, 300_000);
});

describe.skipIf(!BWRAP || !CARGO)('a Rust crate', () => {
  it('`cargo test --offline` gates a fix under bwrap, on the lent registry and toolchain', async () => {
    const root = await tempDir('neo-e2e-rust-');
    const home = join(root, 'home');
    const cargoHome = join(root, 'cargo-home');
    // A dependency from a git repository: fetched once on the host into CARGO_HOME/git.
    const dep = join(root, 'greet');
    await writeTree(dep, {
      'Cargo.toml': '[package]\nname = "greet"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/lib.rs': 'pub fn hello() -> String { "hello".to_string() }\n',
    });
    await git(dep, 'init', '-q', '-b', 'main');
    await git(dep, 'add', '-A');
    await git(dep, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const rustupHome = process.env.RUSTUP_HOME ?? join(process.env.HOME ?? '/root', '.rustup');
    const env = {
      HOME: home,
      CARGO_HOME: cargoHome,
      ...(existsSync(rustupHome) ? { RUSTUP_HOME: rustupHome } : {}),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
    };
    const files = {
      'Cargo.toml': `[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ngreet = { git = "file://${dep}" }\n`,
      'src/lib.rs':
        'pub fn greet() -> String { greet::hello() + "?" }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn greets() { assert_eq!(super::greet(), "hello!"); }\n}\n',
      '.gitignore': 'target/\n',
    };
    const scratch = join(root, 'fill');
    await writeTree(scratch, files);
    await execa('cargo', ['fetch'], { cwd: scratch, env: { ...process.env, ...env } });
    const { repo, neo, init } = await initAndScript(
      root,
      { ...files, 'Cargo.lock': readFileSync(join(scratch, 'Cargo.lock'), 'utf8') },
      env,
      [
        ['cargo', 'build', '--offline'],
        ['touch', join(cargoHome, 'git', 'poison')],
      ],
      { path: 'src/lib.rs', search: '"?"', replace: '"!"' },
    );
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(init.stdout).toContain(
      "note: ~/.cargo's registry and git checkouts and ~/.rustup's toolchains are lent read-only",
    );
    expect(run.stdout).toContain('gate `cargo test --offline` passed (attempt 1/3)');
    const workspace = /workspace: (\S+)/.exec(run.stdout)![1]!;
    // The agent's own build found the crate too; its write into the cache was refused.
    expect(existsSync(join(workspace, 'target', 'debug', 'libm.rlib'))).toBe(true);
    expect(existsSync(join(cargoHome, 'git', 'poison'))).toBe(false);
    expect(readFileSync(join(repo, 'src', 'lib.rs'), 'utf8')).toContain('"?"');
  }, 300_000);
});

/** A GOPROXY file tree serving one module version (`<module>/@v/<version>.{info,mod,zip}`). */
async function goProxy(proxy: string, module: string, version: string, files: Record<string, string>) {
  const at = join(proxy, ...module.split('/'), '@v');
  await writeTree(at, {
    list: `${version}\n`,
    [`${version}.info`]: JSON.stringify({ Version: version }),
    [`${version}.mod`]: files['go.mod']!,
  });
  const entries = Object.entries(files).map(([name, text]) => ({
    name: `${module}@${version}/${name}`,
    data: Buffer.from(text),
  }));
  writeFileSync(join(at, `${version}.zip`), zip(entries));
}

/** A zip archive of deflated entries (what a module proxy serves). */
function zip(entries: Array<{ name: string; data: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const packed = deflateRawSync(data);
    const fields = (size: number) => {
      const b = Buffer.alloc(size);
      return b;
    };
    const local = fields(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(Buffer.byteLength(name), 26);
    const central = fields(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(Buffer.byteLength(name), 28);
    central.writeUInt32LE(offset, 42);
    const nameBytes = Buffer.from(name);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
