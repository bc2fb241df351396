/**
 * git against a run's remote (a bare repository's path or a URL): the few calls the dbos engine
 * makes to move workspaces between machines — probe, push, list, fetch — each bounded in time
 * and hardened like every other neo git call (engine/execution/git-hardening.ts), with two
 * differences a transport needs: the remote's protocol is allowed (file, ssh, git, http(s);
 * never `ext::` or `fd::`, which run programs), and the user's own git setup for reaching it
 * (global config with its credential helper, HOME and the ssh agent) is passed on. Credentials
 * come from that environment only: a URL holding a password is refused (it would be stored in
 * the run's record, readable from every machine).
 */
import { isAbsolute, resolve } from 'node:path';
import { homedir } from 'node:os';
import { runGit, gitFailure, type GitRepo, type GitRun } from '../../../execution/index.js';
import { NeoError, UsageError } from '../../../util/errors.js';
import { checkId } from '../../../util/ids.js';

/** How long one call to the remote may take before it counts as unreachable. */
const REMOTE_TIMEOUT_MS = 120_000;
const PROTOCOLS = ['file', 'ssh', 'git', 'http', 'https'] as const;
const ENV_PASSED = ['HOME', 'SSH_AUTH_SOCK', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_SSL_CAINFO'];

/** The remote as stored with the run: an absolute path, or a URL of an allowed protocol without a password. */
export function normalizeRemote(given: string, cwd: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(given)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!(PROTOCOLS as readonly string[]).includes(scheme))
      throw badRemote(given, `the ${scheme}:// protocol is not one neo pushes over`);
    // A password, or an http(s) user name (a token often is one), would be stored in the run's record.
    if (/^[^:]+:\/\/[^/@]*:[^/@]*@/.test(given) || (scheme.startsWith('http') && /^[^:]+:\/\/[^/]*@/.test(given)))
      throw badRemote(given, 'it holds credentials, which would be stored in the run’s record');
    return given;
  }
  if (given.includes('::')) throw badRemote(given, 'remote helpers (`<transport>::<address>`) run programs');
  // A colon before any slash is git's scp-like ssh address ([user@]host:path).
  if (/^[^/]*:/.test(given) && !given.startsWith('-')) return given;
  if (given.startsWith('-') || given === '') throw badRemote(given, 'it is not a path or a URL');
  return isAbsolute(given) ? given : resolve(cwd, given);
}

function badRemote(given: string, why: string): UsageError {
  return new UsageError('ENGINE_REMOTE_BAD_URL', `--remote \`${redactRemote(given)}\`: ${why}`, {
    hint: 'give a bare repository’s path or an ssh://, https:// or git:// URL; credentials go in the environment (ssh agent, git credential helper)',
  });
}

/** The remote without the credentials a URL may hold, for messages (such a URL is refused, and named so). */
export function redactRemote(url: string): string {
  return url.replace(/^(https?:\/\/)[^/@]*@/i, '$1***@').replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

/** The refs of a run on its remote. */
export const runRefs = (runId: string) => {
  const root = `refs/neo/runs/${checkId('run', runId)}`;
  return {
    root,
    base: `${root}/base`,
    head: `${root}/head`,
    step: (key: string) => `${root}/steps/${refSafe(key)}`,
    pending: (commit: string) => `${root}/pending/${commit}`,
  };
};

/** A step key as one ref component (`fix[0]#1.2` → `fix%5B0%5D#1.2`: git refuses `[`). */
export function refSafe(key: string): string {
  return key.replace(/[^A-Za-z0-9_#.-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The typed error for a remote that cannot be reached, or is no git repository. */
export function remoteUnreachable(url: string, detail: string): NeoError {
  return new NeoError('ENGINE_REMOTE_UNREACHABLE', `the run's remote ${redactRemote(url)} cannot be used: ${detail}`, {
    hint: 'is it a git repository (`git init --bare <path>`), reachable from here with your ssh agent or credential helper?',
  });
}

/** One git call towards `url`, in `repo` (or in `cwd` when it needs none). */
export async function remoteGit(where: GitRepo | string, args: readonly string[]): Promise<GitRun> {
  const env: Record<string, string> = {
    GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL ?? resolve(process.env.HOME ?? homedir(), '.gitconfig'),
  };
  for (const name of ENV_PASSED) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes';
  const overrides: Array<[string, string]> = PROTOCOLS.map((p) => [`protocol.${p}.allow`, 'always']);
  const options = { env, overrides, timeoutMs: REMOTE_TIMEOUT_MS };
  return typeof where === 'string' ? runGit(where, args, options) : where.run(args, options);
}

/** Fails with ENGINE_REMOTE_UNREACHABLE unless `url` answers as a git repository. */
export async function probeRemote(url: string, cwd: string): Promise<void> {
  const run = await remoteGit(cwd, ['ls-remote', url, 'refs/neo/probe']);
  if (!run.ok) throw remoteUnreachable(url, lastLine(run));
}

/** The remote's refs under `prefix` (ref → commit). */
export async function listRemote(where: GitRepo | string, url: string, prefix: string): Promise<Map<string, string>> {
  const run = await remoteGit(where, ['ls-remote', url, `${prefix}/*`]);
  if (!run.ok) throw remoteUnreachable(url, lastLine(run));
  const refs = new Map<string, string>();
  for (const line of run.stdout.split('\n')) {
    const [commit, ref] = line.split('\t');
    if (commit && ref) refs.set(ref, commit);
  }
  return refs;
}

/** A ref update: `create` only where the ref does not exist yet (the first one stays), `move` whatever it was. */
export interface RefUpdate {
  ref: string;
  /** The commit; undefined deletes the ref. */
  commit?: string;
  mode: 'create' | 'move';
}

/**
 * Pushes the updates in one call and says which refs were refused (a `create` of a ref that
 * exists). A remote that does not answer is ENGINE_REMOTE_UNREACHABLE.
 */
export async function pushRefs(repo: GitRepo, url: string, updates: readonly RefUpdate[]): Promise<Set<string>> {
  if (updates.length === 0) return new Set();
  // A `create` is leased on the ref being absent (an empty expected value); a `move` is forced.
  const args = ['push', '--porcelain', '--no-verify'];
  for (const u of updates) if (u.mode === 'create') args.push(`--force-with-lease=${u.ref}:`);
  args.push(url, ...updates.map((u) => `${u.mode === 'move' ? '+' : ''}${u.commit ?? ''}:${u.ref}`));
  const run = await remoteGit(repo, args);
  const refused = new Set<string>();
  let reported = 0;
  for (const line of run.stdout.split('\n')) {
    const [flag, refs] = line.split('\t');
    if (flag === undefined || refs === undefined || !refs.includes(':')) continue;
    reported++;
    if (flag === '!') refused.add(refs.slice(refs.indexOf(':') + 1));
  }
  if (!run.ok && reported === 0) throw remoteUnreachable(url, lastLine(run));
  return refused;
}

/** Fetches every ref of the run into the same names in `repo`. */
export async function fetchRun(repo: GitRepo, url: string, runId: string): Promise<void> {
  const root = runRefs(runId).root;
  const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', url, `+${root}/*:${root}/*`];
  const run = await remoteGit(repo, args);
  if (!run.ok) throw remoteUnreachable(url, gitFailure(['fetch', redactRemote(url)], run));
}

function lastLine(run: GitRun): string {
  return (
    run.stderr
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? `git exited ${run.exitCode ?? 'on a signal'}`
  )
    .replace(/^fatal: /, '')
    .trim();
}
