/**
 * What a sandbox is asked for: the kinds and the spec of one confined process. Types only, in a
 * file of their own, so the interface (`sandbox.ts`) and each adapter (`sandbox-bwrap.ts`) both
 * depend on the spec and never on each other.
 */

export type SandboxKind = 'bwrap' | 'none';

/** A host path made visible inside (the host is read-only; a bind adds write access or moves a tree). */
export interface SandboxBind {
  /** The host path. */
  path: string;
  /** Writable inside (default read-only). */
  write?: boolean;
  /** Where it appears inside (default: the same path). */
  at?: string;
  /** Skipped when the host path does not exist. */
  optional?: boolean;
}

/** What one confined process may see and do. */
export interface SandboxSpec {
  cwd: string;
  /** Host paths visible (and maybe writable) inside, applied after `hide`: a bind inside a hidden tree shows. */
  binds: readonly SandboxBind[];
  /** Host paths replaced by an empty private folder (the user's home, NEO_HOME, /run's sockets). */
  hide: readonly string[];
  /** Reach the network (the host's network namespace); off, only a private loopback. */
  network: boolean;
  /** The process's whole environment. */
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}
