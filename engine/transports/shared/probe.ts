import { spawnProcess } from '../../execution/index.js';
import { ownProgramsPath } from '../../util/own-programs.js';
import type { Backend } from '../../definitions/index.js';
import type { Availability } from '../types.js';
import { binaryEnvVar, requestedBinary, resolveBinary } from './binary.js';

const CACHE_MS = 30_000;
const cache = new Map<string, { at: number; result: Promise<Availability> }>();

/**
 * Finds a backend's binary and asks it for its version. Never throws; results are cached for
 * 30 s per backend and binary, so `neo backends list` and a session start share one probe.
 */
export function probeCli(
  backendId: string,
  descriptor: Backend,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Availability> {
  const key = `${backendId}\0${env[binaryEnvVar(backendId)] ?? ''}\0${descriptor.command?.bin ?? ''}\0${env.PATH ?? ''}`;
  const hit = cache.get(key);
  if (hit !== undefined && Date.now() - hit.at < CACHE_MS) return hit.result;
  const result = runProbe(backendId, descriptor, env).catch((error: unknown): Availability => ({
    available: false,
    status: 'probe-failed',
    detail: error instanceof Error ? error.message : String(error),
  }));
  cache.set(key, { at: Date.now(), result });
  return result;
}

/** Forgets cached probes (tests, or after the user installed something). */
export function clearProbeCache(): void {
  cache.clear();
}

async function runProbe(backendId: string, descriptor: Backend, env: NodeJS.ProcessEnv): Promise<Availability> {
  const command = descriptor.command;
  if (command === undefined)
    return { available: false, status: 'unsupported', detail: 'the descriptor has no command to launch' };
  const resolved = resolveBinary(backendId, descriptor, env);
  if (resolved === undefined) {
    const wanted = requestedBinary(backendId, descriptor, env);
    const install = command.install === undefined ? '' : `install: ${command.install}; `;
    return {
      available: false,
      status: 'missing',
      detail: `"${wanted}" not found`,
      hint: `${install}or set ${binaryEnvVar(backendId)}`,
    };
  }
  const base: Availability = { available: true, status: 'ok', binaryPath: resolved.path };
  const authHint = authHintFor(command, env);
  if (authHint !== undefined) base.hint = authHint;
  if (command.versionArgs === undefined) return base;
  // stdin is closed: several CLIs wait for EOF on a piped stdin, even for --version.
  const result = await spawnProcess([resolved.path, ...command.versionArgs], {
    cwd: process.cwd(),
    // Unconfined: what the CLI starts by name (`#!/usr/bin/env node`) is found as neo's own are.
    env: { ...env, PATH: ownProgramsPath(env.PATH) },
    timeoutMs: 10_000,
    label: 'probe',
  }).result;
  if (result.failed) {
    const why = result.timedOut
      ? 'timed out'
      : (result.spawnError ?? `exit code ${result.exitCode ?? result.signal ?? '?'}`);
    return {
      available: false,
      status: 'probe-failed',
      binaryPath: resolved.path,
      detail: `${command.versionArgs.join(' ')} failed (${why}): ${firstLine(result.stderr) || firstLine(result.stdout)}`,
    };
  }
  const version = extractVersion(`${result.stdout}\n${result.stderr}`);
  return version === undefined ? base : { ...base, version };
}

/** The auth hint when none of the descriptor's credential variables is set (a login may still exist). */
function authHintFor(command: NonNullable<Backend['command']>, env: NodeJS.ProcessEnv): string | undefined {
  if (command.authHint === undefined) return undefined;
  const vars = command.authEnv ?? [];
  if (vars.some((name) => (env[name] ?? '') !== '')) return undefined;
  return command.authHint;
}

/** The first dotted version number in the output ("codex-cli 0.171.0" → "0.171.0"). */
export function extractVersion(output: string): string | undefined {
  return /\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?/.exec(output)?.[0];
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}
