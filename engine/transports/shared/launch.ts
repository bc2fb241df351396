import type { Backend, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import type { SessionSandbox, StartSessionOptions } from '../types.js';
import { binaryEnvVar, requestedBinary, resolveBinary } from './binary.js';
import { defined } from '../../util/defined.js';

type PostureTarget = NonNullable<Backend['postureMap'][Posture]>;

/** What it takes to spawn one backend's CLI. */
export interface LaunchPlan {
  file: string;
  /** The descriptor's protocol-selecting args (command.args). */
  baseArgs: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  sandbox?: SessionSandbox;
}

/**
 * Resolves the executable and environment for a session. A missing binary is the one clear
 * TRANSPORT_BINARY_MISSING error, naming the install command and the override variable.
 */
export function planLaunch(backendId: string, options: StartSessionOptions): LaunchPlan {
  const descriptor = options.descriptor;
  const baseEnv = options.env ?? process.env;
  const env = { ...childEnv(baseEnv, descriptor.env), ...postureEnv(descriptor.postureMap[options.posture]) };
  const resolved = resolveBinary(backendId, descriptor, env, options.cwd);
  if (resolved === undefined) throw binaryMissing(backendId, descriptor, env);
  return {
    file: resolved.path,
    baseArgs: [...(descriptor.command?.args ?? [])],
    env,
    cwd: options.cwd,
    ...defined({ sandbox: options.sandbox }),
  };
}

/** The TRANSPORT_BINARY_MISSING error for a backend. */
export function binaryMissing(backendId: string, descriptor: Backend, env: NodeJS.ProcessEnv): NeoError {
  const wanted = requestedBinary(backendId, descriptor, env);
  const install = descriptor.command?.install;
  return new NeoError(
    'TRANSPORT_BINARY_MISSING',
    `${descriptor.displayName ?? backendId}: executable "${wanted}" not found`,
    {
      hint: `${install === undefined ? 'install it' : `install it with \`${install}\``}, or point ${binaryEnvVar(backendId)} at the executable`,
    },
  );
}

/**
 * The descriptor's mapping for a posture. Postures fail closed: a posture the descriptor does
 * not list rejects the start (or the posture change).
 */
export function postureTarget(backendId: string, descriptor: Backend, posture: Posture): PostureTarget {
  const target = descriptor.postureMap[posture];
  if (target === undefined) {
    const known = Object.keys(descriptor.postureMap).join(', ') || 'none';
    throw new NeoError(
      'TRANSPORT_POSTURE_UNSUPPORTED',
      `${backendId} cannot express posture ${posture} (its descriptor maps: ${known})`,
      {
        hint: "choose one of the mapped postures, or add it to the descriptor's postureMap",
      },
    );
  }
  return target;
}

/** The child's environment: the session's env plus the descriptor's `env`, with ${VAR} resolved. */
export function childEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [key, value] of Object.entries(extra ?? {})) {
    env[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => base[name] ?? '');
  }
  return env;
}

/**
 * A posture's `settings.env`: variables set at launch for agents whose permission rules come
 * from the environment (OpenCode's OPENCODE_PERMISSION). Objects are passed as JSON.
 */
export function postureEnv(target: PostureTarget | undefined): Record<string, string> {
  const env = (target?.settings as { env?: unknown } | undefined)?.env;
  if (typeof env !== 'object' || env === null) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env as Record<string, unknown>))
    out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}
