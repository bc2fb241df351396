/**
 * The sandbox: one small interface every confined process goes through, whatever confines it.
 * `bwrap` (bubblewrap) is the first implementation and `none` the other; docker or podman are
 * further adapters behind the same `wrap` (an argv that runs `argv` inside), never a second
 * code path. Spawning stays with `spawnProcess`: the wrapper is the group's leader, so kill-tree,
 * the registry and the tags work unchanged.
 */
import {
  feedDescriptor,
  notStarted,
  spawnProcess,
  type ProcessResult,
  type RunningProcess,
  type SpawnOptions,
} from './spawn.js';
import { unixSocketFilter } from './seccomp-filter.js';
import { bwrapArgv, bwrapSetupFailure } from './sandbox-bwrap.js';
import { defined } from '../util/defined.js';
import type { SandboxKind, SandboxSpec } from './sandbox-spec.js';

export const SANDBOX_KINDS: readonly SandboxKind[] = ['none', 'bwrap'];

/** Spawn options the sandbox leaves to the caller (the spec owns cwd, env and the timeout). */
export type SandboxSpawnOptions = Omit<SpawnOptions, 'cwd' | 'env' | 'timeoutMs'>;

export interface Sandbox {
  readonly kind: SandboxKind;
  /** The argv that runs `argv` confined by `spec` (`none`: `argv` itself). */
  wrap(argv: readonly string[], spec: SandboxSpec): string[];
  /** Starts `argv` confined (streams, stdin: whatever `options` ask). */
  spawn(argv: readonly string[], spec: SandboxSpec, options?: SandboxSpawnOptions): RunningProcess;
  /**
   * Runs `argv` confined to its end. A sandbox that could not set the process up is a
   * `spawnError` naming the sandbox, never an exit code the command seems to have returned.
   */
  run(argv: readonly string[], spec: SandboxSpec, options?: SandboxSpawnOptions): Promise<ProcessResult>;
}

/** The adapter of a kind. Availability is asked separately (`probeSandbox`), once, before a run starts. */
export function sandboxOf(kind: SandboxKind): Sandbox {
  return kind === 'bwrap' ? BWRAP : NONE;
}

function adapter(
  kind: SandboxKind,
  wrap: (argv: readonly string[], spec: SandboxSpec, seccompFd?: number) => string[],
  setupFailure?: (r: ProcessResult) => string | undefined,
) {
  const shutInherited = kind !== 'none';
  const spawn: Sandbox['spawn'] = (argv, spec, options = {}) => {
    // A networked bwrap sandbox gets its seccomp filter on a descriptor of its own (seccomp-filter.ts).
    const filter = kind === 'bwrap' && spec.network ? unixSocketFilter() : undefined;
    if (kind === 'bwrap' && spec.network && filter === undefined)
      return notStarted(
        `the sandbox has no unix-socket filter for this machine's architecture (${process.arch}), so it cannot confine a process with the network`,
      );
    return spawnProcess(wrap(argv, spec, filter === undefined ? undefined : feedDescriptor(shutInherited)), {
      label: options.label ?? `${kind === 'none' ? '' : `${kind}: `}${argv[0] ?? ''}`,
      ...options,
      cwd: kind === 'none' ? spec.cwd : '/',
      env: spec.env,
      shutInherited,
      ...defined({ timeoutMs: spec.timeoutMs, feed: filter }),
    });
  };
  return {
    kind,
    wrap: (argv, spec) => wrap(argv, spec),
    spawn,
    // Not an async function: it would keep `spec` (the command's whole environment) until the
    // command ends, which the child no longer needs once it is spawned.
    run: (argv, spec, options) =>
      spawn(argv, spec, options).result.then((result) => {
        const failure = setupFailure?.(result);
        return failure === undefined ? result : { ...result, failed: true, spawnError: failure };
      }),
  } satisfies Sandbox;
}

const NONE = adapter('none', (argv) => [...argv]);
const BWRAP = adapter('bwrap', bwrapArgv, bwrapSetupFailure);
