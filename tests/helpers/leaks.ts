/**
 * What a test left behind: processes it started that still run, runs left `running`, and
 * events files with a gap. The e2e harness (tests/setup/e2e-leaks.ts) asks after every test.
 *
 * A process is the test's when it was not running before the test began and it descends from
 * this test process, or runs with a NEO_HOME or a working directory inside one of the test's
 * folders (a session daemon and a detached run leave the process tree; an agent's command
 * inherits its neo's NEO_HOME or runs in the workspace).
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

const watched = new Set<string>();
const unfinished = new Set<string>();

/** A folder the current test runs `neo` in or with (its NEO_HOME): checked after the test. */
export function watchFolder(path: string | undefined): void {
  if (path !== undefined && path !== '') watched.add(path);
}

/** A run the test leaves `running` on purpose (it killed the driver to look at what remains). */
export function allowUnfinishedRun(runId: string): void {
  unfinished.add(runId);
}

/** The folders and allowed runs noted since the last call; forgets them. */
export function takeNoted(): { folders: string[]; allowedRuns: Set<string> } {
  const taken = { folders: [...watched], allowedRuns: new Set(unfinished) };
  watched.clear();
  unfinished.clear();
  return taken;
}

/** A process as /proc shows it. */
interface Proc {
  pid: number;
  ppid: number;
  /** pid:start, one process for good. */
  key: string;
  zombie: boolean;
}

/** Every process's pid:start now (what a test must not be blamed for). */
export function runningNow(): Set<string> {
  return new Set(scan().map((p) => p.key));
}

export interface LeakCheck {
  /** The test's folders (its temp dirs and the NEO_HOMEs it named). */
  roots: readonly string[];
  /** What ran before the test began (from {@link runningNow}). */
  before: ReadonlySet<string>;
  /** Runs the test leaves unfinished on purpose. */
  allowedRuns?: ReadonlySet<string>;
}

/** The processes of the test still running, as `pid (command)`. */
export function leftProcesses(check: LeakCheck): Array<{ pid: number; what: string }> {
  const procs = scan();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  // A child of something that ran before the test (a browser a `beforeAll` launched) is that
  // fixture's; only a line of new processes up to this one is the test's.
  const descends = (p: Proc): boolean => {
    for (let at: Proc | undefined = p, hops = 0; at !== undefined && hops < 64; hops++) {
      if (at.ppid === process.pid) return true;
      at = byPid.get(at.ppid);
      if (at !== undefined && check.before.has(at.key)) return false;
    }
    return false;
  };
  const roots = check.roots.map(real);
  const inside = (path: string | undefined) =>
    path !== undefined && roots.some((root) => path === root || path.startsWith(root + sep));
  return procs
    .filter((p) => !p.zombie && p.pid !== process.pid && !check.before.has(p.key))
    .filter((p) => descends(p) || inside(neoHomeOf(p.pid)) || inside(cwdOf(p.pid)))
    .map((p) => ({ pid: p.pid, what: commandOf(p.pid) }));
}

/** Runs left `running`, and events files (runs and code sessions) that do not count 1, 2, 3 … */
export function leftRecords(check: LeakCheck): string[] {
  const problems: string[] = [];
  for (const home of homesUnder(check.roots)) {
    for (const runId of folders(join(home, 'runs'))) {
      const record = readJson(join(home, 'runs', runId, 'run.json')) as { status?: string } | undefined;
      if (record?.status === 'running' && check.allowedRuns?.has(runId) !== true)
        problems.push(`run ${runId} in ${home} is left running`);
      problems.push(...gaps(join(home, 'runs', runId, 'events.jsonl')));
    }
    for (const sessionId of folders(join(home, 'code-sessions')))
      problems.push(...gaps(join(home, 'code-sessions', sessionId, 'events.jsonl')));
  }
  return problems;
}

/** Folders (a root and two levels below it) that hold a neo home's `runs` or `code-sessions`. */
function homesUnder(roots: readonly string[]): string[] {
  const homes = new Set<string>();
  const visit = (dir: string, depth: number) => {
    const names = folders(dir);
    if (names.includes('runs') || names.includes('code-sessions')) homes.add(dir);
    if (depth < 2)
      for (const name of names) if (name !== 'node_modules' && name !== '.git') visit(join(dir, name), depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return [...homes];
}

/** Each line parses and seq runs 1, 2, 3 … with no gap. */
function gaps(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((line) => line !== '');
  for (let i = 0; i < lines.length; i++) {
    let seq: unknown;
    try {
      seq = (JSON.parse(lines[i]!) as { seq?: unknown }).seq;
    } catch {
      return [`${path}:${i + 1} is not a whole event line`];
    }
    if (seq !== i + 1) return [`${path}:${i + 1} has seq ${String(seq)}: the log has a gap`];
  }
  return [];
}

function scan(): Proc[] {
  const out: Proc[] = [];
  for (const entry of folders('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        key: `${entry}:${fields[19]}`,
        zombie: fields[0] === 'Z' || fields[0] === 'X',
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function neoHomeOf(pid: number): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith('NEO_HOME='));
    return entry?.slice('NEO_HOME='.length);
  } catch {
    return undefined;
  }
}

function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
  } catch {
    return '?';
  }
}

function folders(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
