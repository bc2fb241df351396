import { excerpt } from '../../util/excerpt.js';

/** Lines of a failure's output shown to a person (the agent gets the gate's 60). */
export const FAILURE_OUTPUT_LINES = 12;
/** A longer line keeps its start and end (a minified bundle's one line must not fill the screen). */
const LINE_CHARS = 300;

/** The last lines of what a failed step's check or command printed: why it failed, in its own words. */
export interface FailureOutput {
  /** What printed them: "gate `npm test` (exit 127)", "stderr". */
  source: string;
  lines: string[];
  /** Lines before these that are not shown. */
  omitted: number;
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
  const lines = all.slice(-FAILURE_OUTPUT_LINES).map((line) => excerpt(line, LINE_CHARS));
  return { source, lines, omitted: all.length - lines.length };
}

/** "gate `npm test` (exit 127), last 3 lines:" — the heading a printer puts above the lines. */
export function failureOutputHeading(output: FailureOutput): string {
  const count = `${output.lines.length} line${output.lines.length === 1 ? '' : 's'}`;
  return `${output.source}, ${output.omitted > 0 ? `last ${count} of ${output.lines.length + output.omitted}` : count}:`;
}
