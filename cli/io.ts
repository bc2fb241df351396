import type { Writable } from 'node:stream';
import { processRedact, redactDeep } from '../engine/util/redact.js';

/** What a command needs from its surroundings; tests pass their own. */
export interface CommandIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CommandIO {
  keepWorkingWhenOutputCloses(process.stdout);
  keepWorkingWhenOutputCloses(process.stderr);
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
}

/**
 * Output is for the person watching; the work's record is on disk. A reader that goes away
 * (`neo flow run --json | head -1`, a closed terminal) makes writes fail with EPIPE or EIO, and
 * an unhandled stream error would kill neo mid-run, losing the run. Such errors are absorbed:
 * the stream is destroyed and later writes are dropped, while the work goes on to its end.
 */
function keepWorkingWhenOutputCloses(stream: NodeJS.WriteStream): void {
  if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
}

/** Colours only on a TTY and never under NO_COLOR (any value) or TERM=dumb. */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${text}\n`);
}

/**
 * Prints a value as JSON (the `--json` output of every data command), every string in it passed
 * through the one redactor first: a secret a step printed is no more shown here than on a
 * terminal. (Escape sequences need no sanitiser: JSON escapes control characters.)
 */
export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(redactDeep(value, processRedact()), null, 2)}\n`);
}

/** {@link writeJson} as one line: the NDJSON of `--json` streams (flow run, resume, logs). */
export function writeJsonLine(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(redactDeep(value, processRedact()))}\n`);
}

/** A small ANSI painter that is a no-op when colour is off. */
export function painter(on: boolean) {
  const wrap = (code: string) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { bold: wrap('1'), dim: wrap('2'), red: wrap('31'), green: wrap('32'), yellow: wrap('33'), cyan: wrap('36') };
}

/** Renders rows as aligned columns. */
export function table(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleLength(cell))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function visibleLength(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}
