import { acquireOwnerLock, describeProcess, type HeldLock, type LockOwner } from '../../execution/index.js';
import type { NeoError } from '../../util/errors.js';

/** What a run's lock file says about its holder. */
export type LockInfo = { runId: string } & LockOwner;

export type RunLock = HeldLock<{ runId: string }>;

/**
 * Takes a run's lock file (created exclusively), naming this process by pid and start time. A
 * holder that is no longer that process (gone, a zombie, a recycled pid) is stale and taken
 * over — `tookOverFrom` says whose it was; a live holder is `describe(holder)`, unless it is this
 * very process and run (an earlier attempt of the same resume).
 */
export function acquireLockFile(path: string, runId: string, describe: (holder: LockInfo) => NeoError): RunLock {
  return acquireOwnerLock(path, { runId }, { busy: describe, isOurs: (holder) => holder.runId === runId });
}

/** "run X's lock (pid N, started at tick T) was taken over: that process is gone". */
export function takeOverNotice(what: string, holder: LockInfo): string {
  return `${what}: took over the lock of run ${holder.runId} from ${describeProcess(holder)}, which is no longer running`;
}
