/**
 * A process named for good: its pid AND its start time. A pid alone is recycled by the kernel,
 * so a lock or a record that names only a pid can later point at an unrelated process (or at a
 * zombie, which still answers kill(pid, 0)). Every "is the owner still there?" question in neo
 * goes through {@link isSameProcess}.
 */
import { isRunning, readStat } from './proc.js';

export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot; absent where /proc is not available. */
  start?: number;
}

let self: ProcessIdentity | undefined;

/** This process. */
export function selfIdentity(): ProcessIdentity {
  self ??= identify(process.pid) ?? { pid: process.pid };
  return self;
}

/** The identity of a running process now, or undefined when it is gone or a zombie. */
export function identify(pid: number): ProcessIdentity | undefined {
  const stat = readStat(pid);
  if (stat !== undefined) return isRunning(stat) ? { pid, start: stat.start } : undefined;
  return signalAnswers(pid) ? { pid } : undefined;
}

/** Whether a pid names a running process (zombies excluded), for a pid with no start time on record. */
export function isRunningPid(pid: number): boolean {
  return isSameProcess({ pid });
}

/**
 * Whether the process an identity names is still running: same pid, same start time, not a
 * zombie. An identity without a start time (written where there was no /proc) falls back to
 * whether the pid answers.
 */
export function isSameProcess(identity: ProcessIdentity | undefined): boolean {
  if (identity === undefined || !Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  if (identity.pid === process.pid) return identity.start === undefined || identity.start === selfIdentity().start;
  const stat = readStat(identity.pid);
  if (stat === undefined) return identity.start === undefined && signalAnswers(identity.pid);
  return isRunning(stat) && (identity.start === undefined || stat.start === identity.start);
}

/** `pid 123` or `pid 123 (started at tick 456)`, for messages. */
export function describeProcess(identity: ProcessIdentity): string {
  return identity.start === undefined
    ? `pid ${identity.pid}`
    : `pid ${identity.pid}, started at tick ${identity.start}`;
}

function signalAnswers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
