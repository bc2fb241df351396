/**
 * What the kernel says about processes, read from /proc (Linux). Everything here answers
 * "unknown" (undefined) rather than guessing where /proc is missing or a process went away
 * between two reads.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat neo needs. */
export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), X (dead), T … */
  state: string;
  pgrp: number;
  /** Start time in clock ticks since boot: with the pid, it names one process for good. */
  start: number;
}

/** The variable every process neo starts carries (and passes on to what it starts). */
export const TAG_VARIABLE = 'NEO_PROCESS_TAG';

/** One process's stat line, or undefined when it is gone (or there is no /proc). */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice threads itrealvalue starttime …": comm may hold spaces
  // and parentheses, so fields are counted from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state: fields[0] ?? '', pgrp: Number(fields[2]), start: Number(fields[19]) };
}

/** Whether a stat is a process that runs (a zombie has exited and only waits to be reaped). */
export function isRunning(stat: ProcStat | undefined): stat is ProcStat {
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** Every pid on the machine, or undefined without /proc. */
export function allPids(): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(entry));
  }
  return pids;
}

/** Living (non-zombie) processes whose stat matches `keep`. */
export function livingProcesses(keep: (stat: ProcStat) => boolean): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of allPids() ?? []) {
    const stat = readStat(pid);
    if (isRunning(stat) && keep(stat)) out.push(stat);
  }
  return out;
}

/**
 * The tags a process was started with (the words of its NEO_PROCESS_TAG), from the environment
 * it was exec'd with. Empty when it has none or its environment cannot be read (not ours).
 */
export function readTags(pid: number): string[] {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return [];
  }
  const key = Buffer.from(`${TAG_VARIABLE}=`);
  let at = environ.indexOf(key);
  // Only a match at the start of an entry is the variable itself.
  while (at > 0 && environ[at - 1] !== 0) at = environ.indexOf(key, at + 1);
  if (at < 0) return [];
  const end = environ.indexOf(0, at);
  const value = environ.subarray(at + key.length, end < 0 ? environ.length : end).toString('utf8');
  return value.split(' ').filter((word) => word !== '');
}
