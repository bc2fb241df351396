import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { findOwnProgram } from '../../util/own-programs.js';
import type { Backend } from '../../definitions/index.js';

/** Where a backend's executable was found, and which setting named it. */
export interface ResolvedBinary {
  path: string;
  source: 'env' | 'descriptor' | 'path';
}

/** `claude-code` → `NEO_CLAUDE_CODE_BIN`: the override for a backend's executable. */
export function binaryEnvVar(backendId: string): string {
  return `NEO_${backendId.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_BIN`;
}

/**
 * Finds the executable for a backend: `NEO_<ID>_BIN` first, then the descriptor's
 * `command.bin` (absolute, relative to cwd, or looked up on the PATH of `env`).
 */
export function resolveBinary(
  backendId: string,
  descriptor: Backend,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): ResolvedBinary | undefined {
  const override = env[binaryEnvVar(backendId)];
  if (override !== undefined && override !== '') {
    const path = findExecutable(override, env, cwd);
    return path === undefined ? undefined : { path, source: 'env' };
  }
  const bin = descriptor.command?.bin;
  if (bin === undefined || bin === '') return undefined;
  const path = findExecutable(bin, env, cwd);
  if (path === undefined) return undefined;
  return { path, source: bin.includes('/') ? 'descriptor' : 'path' };
}

/** The name the user asked for (for messages), whichever setting provided it. */
export function requestedBinary(backendId: string, descriptor: Backend, env: NodeJS.ProcessEnv): string {
  const override = env[binaryEnvVar(backendId)];
  return override !== undefined && override !== '' ? override : (descriptor.command?.bin ?? backendId);
}

function findExecutable(name: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (name.includes('/')) {
    const path = isAbsolute(name) ? name : resolve(cwd, name);
    return isExecutableFile(path) ? path : undefined;
  }
  // Never from a folder a confined step writes (the project's node_modules/.bin): util/own-programs.ts.
  return findOwnProgram(name, env.PATH);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
