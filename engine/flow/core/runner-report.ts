/**
 * A recognised runner's own report, read from the gate's output: the gate passes on exit 0 only
 * when each runner's summary shows tests ran and none failed (and, when the step's base was run
 * with `baseline`, no fewer than the base ran). It stops a runner that never reported — code
 * under test that ended the process with status 0 — not a forgery: code in the runner's process
 * can print a summary of its own. Read as data (fixed patterns over lines), never evaluated. Pure.
 */
import type { RunnerKind } from './gate-runner.js';

/** What a runner's summary counted: tests that ran (not skipped), and those that failed or errored. */
export interface RunnerCounts {
  ran: number;
  failed: number;
  /** The runner's own word that it ended the run early (pytest's `Exit: …` banner), whatever it counted. */
  stopped?: string;
}

/** The verdict on a gate's output: its counts, or why its exit 0 is no pass (a whole sentence, from `exit 0`). */
export type ReportVerdict = { ok: true; counts: RunnerCounts } | { ok: false; unreported: string };

interface Reader {
  name: string;
  /** What its summary looks like, for the message when it is missing. */
  expect: string;
  read(lines: readonly string[]): RunnerCounts | undefined;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

const READERS: Readonly<Record<RunnerKind, Reader>> = {
  pytest: { name: 'pytest', expect: 'line like `3 passed in 0.12s`', read: readPytest },
  unittest: { name: 'unittest', expect: '`Ran 3 tests in 0.01s` then `OK`', read: readUnittest },
  'node-test': { name: 'node --test', expect: '`# tests 3` / `# fail 0` lines', read: readNodeTest },
  vitest: { name: 'vitest', expect: 'line like `Tests  3 passed (3)`', read: readVitest },
  jest: { name: 'jest', expect: 'line like `Tests: 3 passed, 3 total`', read: readJest },
  'cargo-test': {
    name: 'cargo test',
    expect: '`test result:` line for each test binary it ran',
    read: readCargo,
  },
  'go-test': { name: 'go test -v', expect: "`PASS` line before each package's `ok`", read: readGoTest },
};

/** How a runner is named in messages and `--dry-run`. */
export function runnerName(kind: RunnerKind): string {
  return READERS[kind].name;
}

/**
 * Judges the output of a gate that exited 0, for the runners its command runs: each one's
 * summary must be there, show at least one test run and none failed, and — with `floor`, what
 * the step's base ran — count no fewer tests than that.
 */
export function judgeReport(kinds: readonly RunnerKind[], output: string, floor?: number): ReportVerdict {
  const lines = output
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((line) => line.trim());
  const total: RunnerCounts = { ran: 0, failed: 0 };
  for (const kind of new Set(kinds)) {
    const reader = READERS[kind];
    const counts = reader.read(lines);
    if (counts === undefined)
      return {
        ok: false,
        unreported: `exit 0 without ${reader.name}'s summary: no ${reader.expect}; the tests may never have run`,
      };
    if (counts.stopped !== undefined)
      return {
        ok: false,
        unreported: `exit 0, but ${reader.name} stopped early: \`${counts.stopped}\`; the tests after it never ran`,
      };
    if (counts.failed > 0)
      return { ok: false, unreported: `exit 0, but ${reader.name}'s summary counts ${counts.failed} failed` };
    if (counts.ran === 0) return { ok: false, unreported: `exit 0, but ${reader.name}'s summary shows no test ran` };
    total.ran += counts.ran;
    total.failed += counts.failed;
  }
  if (floor !== undefined && total.ran < floor) {
    const names = [...new Set(kinds)].map(runnerName).join(' and ');
    return {
      ok: false,
      unreported: `exit 0, but ${names}'s summary counts ${tests(total.ran)}, fewer than the ${floor} the step's base ran`,
    };
  }
  return { ok: true, counts: total };
}

/**
 * What the runners' summaries counted in a run that may have failed (the step's base, run with
 * `baseline`): its floor. Undefined when a summary is missing.
 */
export function reportedCounts(kinds: readonly RunnerKind[], output: string): RunnerCounts | undefined {
  const lines = output
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((line) => line.trim());
  const total: RunnerCounts = { ran: 0, failed: 0 };
  for (const kind of new Set(kinds)) {
    const counts = READERS[kind].read(lines);
    if (counts === undefined) return undefined;
    total.ran += counts.ran;
    total.failed += counts.failed;
  }
  return total;
}

function tests(n: number): string {
  return `${n} test${n === 1 ? '' : 's'}`;
}

/**
 * `1 failed, 2 passed, 1 skipped in 0.12s`, framed by `=` without `-q`; `no tests ran in 0.01s`.
 * An xfailed test ran and failed as its marker expected: no proof, so not counted as run (code
 * under test calling `pytest.xfail()` on its failing paths would otherwise keep the floor). After
 * the summary, `!!! _pytest.outcomes.Exit: … !!!` is `pytest.exit()`, which the code under test
 * can call with `returncode=0`: pytest then counts only the tests before it.
 */
function readPytest(lines: readonly string[]): RunnerCounts | undefined {
  const pattern = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran)(?: in [\d.]+s(?: \([^)]*\))?)\s*=*$/;
  const at = lines.findLastIndex((line) => pattern.test(line));
  if (at < 0) return undefined;
  const count = counter(pattern.exec(lines[at]!)![1]!);
  const counts: RunnerCounts = {
    ran: count('passed') + count('failed') + count('error') + count('errors') + count('xpassed'),
    failed: count('failed') + count('error') + count('errors'),
  };
  const exit = lines
    .slice(at + 1)
    .map((line) => /^!+ (?:_pytest\.outcomes\.)?(Exit: .*?|Interrupted: .*?) !+$/.exec(line)?.[1])
    .find((banner) => banner !== undefined);
  return exit === undefined ? counts : { ...counts, stopped: exit };
}

/** `Ran 3 tests in 0.001s`, then `OK` (`OK (skipped=1)`) or `FAILED (failures=1, errors=1)`. */
function readUnittest(lines: readonly string[]): RunnerCounts | undefined {
  const at = lines.findLastIndex((line) => /^Ran \d+ tests? in [\d.]+s$/.test(line));
  if (at < 0) return undefined;
  const ran = Number(/^Ran (\d+)/.exec(lines[at]!)![1]);
  const verdict = lines.slice(at + 1).find((line) => line !== '');
  if (verdict === undefined) return undefined;
  // An expected failure ran and failed, as its decorator said: no proof, like a skip.
  const skipped =
    Number(/skipped=(\d+)/.exec(verdict)?.[1] ?? 0) + Number(/expected failures=(\d+)/.exec(verdict)?.[1] ?? 0);
  if (/^OK\b/.test(verdict)) return { ran: ran - skipped, failed: 0 };
  if (/^FAILED\b/.test(verdict)) {
    const failed = Number(/failures=(\d+)/.exec(verdict)?.[1] ?? 0) + Number(/errors=(\d+)/.exec(verdict)?.[1] ?? 0);
    return { ran: ran - skipped, failed: Math.max(failed, 1) };
  }
  return undefined;
}

/** TAP's `# tests 3` … `# fail 0`, or the spec reporter's `ℹ tests 3` …. */
function readNodeTest(lines: readonly string[]): RunnerCounts | undefined {
  const field = (name: string) => {
    const found = lastMatch(lines, new RegExp(`^(?:#|ℹ) ${name} (\\d+)$`));
    return found === undefined ? undefined : Number(found[1]);
  };
  const total = field('tests');
  const fail = field('fail');
  if (total === undefined || fail === undefined) return undefined;
  const skipped = (field('skipped') ?? 0) + (field('todo') ?? 0);
  return { ran: total - skipped, failed: fail + (field('cancelled') ?? 0) };
}

/** `Tests  1 failed | 2 passed (3)`. */
function readVitest(lines: readonly string[]): RunnerCounts | undefined {
  const found = lastMatch(lines, /^Tests\s+(.+?)\s+\((\d+)\)$/);
  if (found === undefined) return undefined;
  const count = counter(found[1]!);
  return { ran: Number(found[2]) - count('skipped') - count('todo'), failed: count('failed') };
}

/** `Tests:       1 failed, 2 passed, 3 total`. */
function readJest(lines: readonly string[]): RunnerCounts | undefined {
  const found = lastMatch(lines, /^Tests:\s+(.+?),?\s*(\d+) total$/);
  if (found === undefined) return undefined;
  const count = counter(found[1]!);
  return { ran: Number(found[2]) - count('skipped') - count('todo'), failed: count('failed') };
}

/**
 * One `test result:` line per test binary cargo said it runs (`Running …`, `Doc-tests …`): a
 * binary that ended early (`process::exit(0)` under test) leaves its line out.
 */
function readCargo(lines: readonly string[]): RunnerCounts | undefined {
  const binaries = lines.filter((line) => /^(Running \S|Doc-tests \S)/.test(line)).length;
  const results = lines.flatMap((line) => {
    const found = /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed;/.exec(line);
    return found === null ? [] : [{ passed: Number(found[2]), failed: Number(found[3]) }];
  });
  if (results.length === 0 || results.length < binaries) return undefined;
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  return { ran: passed + failed, failed };
}

/**
 * `go test -v`: each package's test binary ends with `PASS` before go prints its `ok`; one that
 * exited early (`os.Exit(0)` in an `init`) prints nothing, and its `ok` stands alone.
 */
function readGoTest(lines: readonly string[]): RunnerCounts | undefined {
  const oks = lines.filter((line) => /^ok\s+\S+/.test(line)).length;
  const passes = lines.filter((line) => line === 'PASS').length;
  if (oks === 0 || passes < oks) return undefined;
  const failed = lines.filter((line) => line.startsWith('--- FAIL:')).length;
  return { ran: lines.filter((line) => line.startsWith('--- PASS:')).length + failed, failed };
}

function lastMatch(lines: readonly string[], pattern: RegExp): RegExpExecArray | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const found = pattern.exec(lines[i]!);
    if (found !== null) return found;
  }
  return undefined;
}

/** `2 passed, 1 failed` / `1 failed | 2 passed` → a lookup of the count before each word. */
function counter(text: string): (word: string) => number {
  const counts = new Map<string, number>();
  for (const [, n, word] of text.matchAll(/(\d+) ([a-z]+)/g)) counts.set(word!, (counts.get(word!) ?? 0) + Number(n));
  return (word) => counts.get(word) ?? 0;
}
