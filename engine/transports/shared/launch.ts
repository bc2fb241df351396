import { distrustProject } from '../../util/own-programs.js';
import { join } from 'node:path';
import type { Backend, Posture } from '../../definitions/index.js';
import type { SandboxBind } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import type { SessionSandbox, StartSessionOptions } from '../types.js';
import { agentEnv } from './agent-env.js';
import { namedVariables, prepareAgentHome, type AgentHome } from './agent-home.js';
import { binaryEnvVar, requestedBinary, resolveBinary } from './binary.js';
import { projectConfigStandIns } from './project-config.js';

type PostureTarget = NonNullable<Backend['postureMap'][Posture]>;

/** What it takes to spawn one backend's CLI. */
export interface LaunchPlan {
  file: string;
  /** The descriptor's protocol-selecting args (command.args). */
  baseArgs: string[];
  /** The CLI's whole environment: the allowlist (agent-env.ts), never neo's own. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  sandbox?: SessionSandbox;
  /** It runs in a sandbox (not `none`), with a home of its own. */
  confined: boolean;
}

/**
 * Resolves the executable and environment for a session. Confined, the CLI gets a home of its
 * own for this session (agent-home.ts), bound read-write into its sandbox and nowhere else. A
 * missing binary is the one clear TRANSPORT_BINARY_MISSING error, naming the install command
 * and the override variable.
 */
export async function planLaunch(backendId: string, options: StartSessionOptions): Promise<LaunchPlan> {
  const descriptor = options.descriptor;
  const baseEnv = options.env ?? process.env;
  // The session's project is written by its agent: never searched for neo's own programs.
  distrustProject(options.cwd);
  // The executable is neo's to find, in neo's environment (NEO_<ID>_BIN, PATH).
  const resolved = resolveBinary(backendId, descriptor, baseEnv, options.cwd);
  if (resolved === undefined) throw binaryMissing(backendId, descriptor, baseEnv);
  const box = options.sandbox;
  const confined = box !== undefined && box.kind !== 'none';
  const entries = descriptor.configHome ?? [];
  const home = confined ? await prepareAgentHome(agentHomeDir(options), entries, baseEnv) : undefined;
  const env = agentEnv(descriptor, baseEnv, {
    // The credentials a provisioned MCP server reads reach it through the CLI that starts it.
    named: [...(await namedVariables(entries, baseEnv)), ...(options.provision?.envNames ?? [])],
    posture: postureEnv(descriptor.postureMap[options.posture]),
    ...(home === undefined ? {} : { home: home.env }),
    ...(confined && box.env !== undefined ? { sandbox: box.env } : {}),
  });
  // Before the CLI starts: what the repository would configure of it is covered, or refused.
  const standIns = projectConfigStandIns(
    backendId,
    descriptor,
    options.cwd,
    confined ? { confined, dir: join(sessionDir(options), 'stand-ins') } : { confined },
  );
  return {
    file: resolved.path,
    baseArgs: [...(descriptor.command?.args ?? [])],
    env,
    cwd: options.cwd,
    confined,
    ...(box === undefined ? {} : { sandbox: withBinds(box, home, [...provisionBind(options), ...standIns]) }),
  };
}

/** The session's own home: a folder of its session's store folder, kept for its resume. */
function agentHomeDir(options: StartSessionOptions): string {
  return join(sessionDir(options), 'home');
}

/** The session's folder under NEO_HOME, which a confined session needs (its home, its stand-ins). */
function sessionDir(options: StartSessionOptions): string {
  if (options.sessionDir === undefined)
    throw new NeoError('TRANSPORT_START_FAILED', 'a confined session needs its session folder for its own home', {
      hint: 'start it through the session service, which gives every session its folder under NEO_HOME/code-sessions',
    });
  return options.sessionDir;
}

/**
 * The sandbox with the session's home shown read-write (the only home the CLI sees) and the
 * stand-ins over the workspace's configuration of the CLI, read-only (binds after the workspace's).
 */
function withBinds(box: SessionSandbox, home: AgentHome | undefined, standIns: SandboxBind[]): SessionSandbox {
  const homeBind: SandboxBind[] = home === undefined ? [] : [{ path: home.dir, write: true }];
  return { ...box, binds: [...box.binds, ...homeBind, ...standIns] };
}

/** The session's provisioned MCP config, skills and instructions, read-only in its sandbox. */
function provisionBind(options: StartSessionOptions): SandboxBind[] {
  const dir = options.provision?.dir;
  return dir === undefined ? [] : [{ path: dir, optional: true }];
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
