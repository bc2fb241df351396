/**
 * The toolchains and module caches a Go or Rust project's confined processes are lent. A
 * sandbox hides the user's home, where they usually live (`~/go/pkg/mod`, `~/.cargo`,
 * `~/.rustup`), so a gate like `go test ./...` or `cargo test --offline` found neither its
 * compiler nor its dependencies, and no network to fetch them. A workspace of such a project
 * (`workspace.dependencies: reuse`, the default) is lent, read-only, exactly these folders — never
 * the home itself, and never `~/.cargo/credentials.toml` or a config that may hold a token — and
 * its confined processes are told where they are (GOMODCACHE, CARGO_HOME, RUSTUP_HOME) and that
 * they are offline (GOPROXY=off, CARGO_NET_OFFLINE). Read-only, so nothing confined can poison
 * the cache the user's own builds read; each confined process builds in a cache of its own
 * (GOCACHE in its private /tmp, cargo's `target/` in its workspace), so no agent's build output is
 * ever a gate's. Decided from the user's environment when the run starts, recorded by neo.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, basename } from 'node:path';
import { onPath } from '../../execution/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';

export type ToolchainLoan = NonNullable<WorkspaceRecord['toolchains']>;

/** Where a confined Go build keeps its build cache: the sandbox's own /tmp, gone with it. */
export const CONFINED_GOCACHE = '/tmp/neo-go-build';

/** What a project in `dirs` (the repository's top, the project folder) is lent, or undefined for neither Go nor Rust. */
export function toolchainLoan(
  dirs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ToolchainLoan | undefined {
  const has = (file: string) => dirs.some((dir) => isFile(join(dir, file)));
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  const parts = [...(has('go.mod') ? [goLoan(env, home)] : []), ...(has('Cargo.toml') ? [rustLoan(env, home)] : [])];
  if (parts.length === 0) return undefined;
  return {
    ecosystems: parts.map((part) => part.ecosystem),
    readOnly: [...new Set(parts.flatMap((part) => part.readOnly))],
    env: Object.assign({}, ...parts.map((part) => part.env)) as Record<string, string>,
  };
}

type Part = { ecosystem: string; readOnly: string[]; env: Record<string, string> };

function goLoan(env: NodeJS.ProcessEnv, home: string): Part {
  const gopath = (env.GOPATH ?? '').split(delimiter).find((dir) => dir !== '') ?? join(home, 'go');
  const modcache = env.GOMODCACHE !== undefined && env.GOMODCACHE !== '' ? env.GOMODCACHE : join(gopath, 'pkg', 'mod');
  // The Go install (GOROOT) the PATH finds, when it lies under a hidden tree (~/sdk/go1.22, ~/.local/go).
  const go = onPath('go', env.PATH ?? '')?.real;
  const root = go !== undefined && basename(dirname(go)) === 'bin' ? dirname(dirname(go)) : undefined;
  return {
    ecosystem: 'go',
    readOnly: existing([modcache, join(gopath, 'bin'), ...(root === undefined ? [] : [root])]),
    env: { GOMODCACHE: modcache, GOPROXY: 'off', GOCACHE: CONFINED_GOCACHE },
  };
}

function rustLoan(env: NodeJS.ProcessEnv, home: string): Part {
  const cargo = env.CARGO_HOME !== undefined && env.CARGO_HOME !== '' ? env.CARGO_HOME : join(home, '.cargo');
  const rustup = env.RUSTUP_HOME !== undefined && env.RUSTUP_HOME !== '' ? env.RUSTUP_HOME : join(home, '.rustup');
  return {
    ecosystem: 'rust',
    // Programs, the registry (index, .crate files, sources) and git dependencies; rustup's
    // toolchains and its choice of default. Not credentials.toml, nor config.toml (it may hold a token).
    readOnly: existing([
      ...['bin', 'registry', 'git'].map((name) => join(cargo, name)),
      ...['toolchains', 'settings.toml'].map((name) => join(rustup, name)),
    ]),
    env: { CARGO_HOME: cargo, ...(exists(rustup) ? { RUSTUP_HOME: rustup } : {}), CARGO_NET_OFFLINE: 'true' },
  };
}

function existing(paths: readonly string[]): string[] {
  return paths.filter(exists);
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}
