/** The shell commands run under, the environment they get, and where they run. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  confinedEnv,
  sandboxOf,
  type RunningProcess,
  type SandboxBind,
  type SandboxKind,
  type SandboxSpawnOptions,
} from '../../execution/index.js';

let shell: string | undefined;

/** bash when it is on PATH (models write bash), else sh. */
export function commandShell(env: NodeJS.ProcessEnv = process.env): string {
  if (shell !== undefined) return shell;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'bash'), constants.X_OK);
      shell = join(dir, 'bash');
      return shell;
    } catch {
      // keep looking
    }
  }
  shell = '/bin/sh';
  return shell;
}

/**
 * The environment an agent's commands get: the one allowlist every confined process gets
 * (engine/execution/confined-env.ts), whatever the sandbox. An agent is untrusted: no provider
 * key, token or database URL of neo's environment reaches what it runs, its own model key least.
 */
export function commandEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return confinedEnv(base);
}

/** Where an agent's commands run: the session's sandbox (kind `none`: the user's full rights). */
export interface CommandSandbox {
  kind: SandboxKind;
  binds: readonly SandboxBind[];
  hide: readonly string[];
  network: boolean;
  /** Each command's process bound (a flow's `maxProcesses`). */
  maxProcesses?: number;
}

const UNCONFINED: CommandSandbox = { kind: 'none', binds: [], hide: [], network: true };

/**
 * Starts one of the agent's commands in its sandbox: the sandbox leads the process group, so a
 * kill reaches everything inside, and in bwrap whatever the command left (a `setsid` child with a
 * cleared environment included) dies with the sandbox's own PID namespace.
 */
export function spawnCommand(
  argv: readonly string[],
  where: { cwd: string; env: NodeJS.ProcessEnv; sandbox?: CommandSandbox; timeoutMs?: number },
  options: SandboxSpawnOptions,
): RunningProcess {
  const box = where.sandbox ?? UNCONFINED;
  return sandboxOf(box.kind).spawn(
    argv,
    {
      binds: box.binds,
      hide: box.hide,
      network: box.network,
      cwd: where.cwd,
      env: where.env,
      ...(where.timeoutMs === undefined ? {} : { timeoutMs: where.timeoutMs }),
    },
    box.maxProcesses === undefined ? options : { ...options, maxProcesses: box.maxProcesses },
  );
}
