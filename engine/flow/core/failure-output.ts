import { excerpt } from '../../util/excerpt.js';

/** Lines of a failure's output shown to a person (the agent gets the gate's 60). */
export const FAILURE_OUTPUT_LINES = 12;
/** The line between a first failure and the last lines, when lines lie between them. */
export const FAILURE_OUTPUT_GAP = '…';
/** Of those, the first failure's when it lies above the last lines. */
const FIRST_FAILURE_LINES = 6;
/**
 * A line that starts a test's failure in the runners' own words: uvu's, vitest's and jest's `FAIL`
 * and `×`/`●`, node --test's `not ok`/`✖`, mocha's `1) `, Go's `--- FAIL`, pytest's `E   `,
 * an `AssertionError`, Rust's `panicked at`. Runners that print their summary last (uvu, jest,
 * vitest, mocha) leave the failure above the last lines, which then said only "Passed: 43".
 */
const FAILURE_MARK =
  /^\s*(?:FAIL\b|FAILED\b|--- FAIL\b|not ok\b|[×✗✘✖●]\s|\d+\) |E {3})|AssertionError|\bpanicked at\b/;
// The colours a runner prints are escapes around the words.
const ANSI = /\x1b\[[0-9;]*m/g;
/** A longer line keeps its start and end (a minified bundle's one line must not fill the screen). */
const LINE_CHARS = 300;

/**
 * What a failed step's check or command printed, capped: why it failed, in its own words — its
 * last lines, and above them its first failure when that lies further up.
 */
export interface FailureOutput {
  /** What printed them: "gate `npm test` (exit 127)", "stderr". */
  source: string;
  /** The lines to print; a first failure and the last lines are parted by a {@link FAILURE_OUTPUT_GAP} line. */
  lines: string[];
  /** Lines of the output that are not shown. */
  omitted: number;
  /** The lines begin with the first failure, not the output's tail. */
  firstFailure?: true;
}

/**
 * The output that explains a failed step, capped: a failed verify gate's tail, else a failed
 * command's stderr (its stdout when stderr is empty). Undefined when the step did not fail or
 * recorded no output. One rule for the summary, `neo flow show`, `neo flow logs` and the web
 * run page. Pure: the text is the run's record, already redacted when it was written; whoever
 * prints it still passes it through their sanitiser.
 */
export function failureOutput(
  status: string | undefined,
  outputs: Record<string, unknown> | undefined,
): FailureOutput | undefined {
  if (status !== 'failed' || outputs === undefined) return undefined;
  const gate = outputs.gate as { passed?: unknown; tail?: unknown; command?: unknown; exitCode?: unknown } | undefined;
  if (gate !== undefined && gate.passed === false && typeof gate.tail === 'string') {
    const exit = typeof gate.exitCode === 'number' ? ` (exit ${gate.exitCode})` : '';
    return lastOf(`gate \`${String(gate.command)}\`${exit}`, gate.tail);
  }
  if (typeof outputs.exitCode !== 'number') return undefined;
  const stderr = typeof outputs.stderr === 'string' ? outputs.stderr : '';
  const stdout = typeof outputs.stdout === 'string' ? outputs.stdout : '';
  if (stderr.trim() !== '') return lastOf('stderr', stderr);
  if (stdout.trim() !== '') return lastOf('stdout', stdout);
  return undefined;
}

function lastOf(source: string, text: string): FailureOutput | undefined {
  const all = text.replace(/\s+$/, '').split('\n');
  if (all.length === 1 && all[0] === '') return undefined;
  const cut = (lines: string[]) => lines.map((line) => excerpt(line, LINE_CHARS));
  const tailStart = Math.max(0, all.length - FAILURE_OUTPUT_LINES);
  const first = all.findIndex((line) => FAILURE_MARK.test(line.replace(ANSI, '')));
  if (first < 0 || first >= tailStart) {
    const lines = cut(all.slice(tailStart));
    return { source, lines, omitted: all.length - lines.length };
  }
  const head = all.slice(first, first + FIRST_FAILURE_LINES);
  const tail = all.slice(Math.max(first + head.length, all.length - (FAILURE_OUTPUT_LINES - head.length - 1)));
  const gap = first + head.length < all.length - tail.length ? [FAILURE_OUTPUT_GAP] : [];
  return {
    source,
    lines: [...cut(head), ...gap, ...cut(tail)],
    omitted: all.length - head.length - tail.length,
    firstFailure: true,
  };
}

/** "gate `npm test` (exit 127), last 3 lines:" — the heading a printer puts above the lines. */
export function failureOutputHeading(output: FailureOutput): string {
  const shown = output.lines.filter((line) => line !== FAILURE_OUTPUT_GAP).length;
  const count = `${shown} line${shown === 1 ? '' : 's'}`;
  if (output.firstFailure === true)
    return `${output.source}, its first failure and last lines, ${count} of ${shown + output.omitted}:`;
  return `${output.source}, ${output.omitted > 0 ? `last ${count} of ${shown + output.omitted}` : count}:`;
}
