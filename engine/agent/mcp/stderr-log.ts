/**
 * A server's stderr, kept for the session: redacted line by line (a server may print the token it
 * was given) into `<sessionDir>/mcp/<server>.stderr.log`, capped so a chatty server cannot fill
 * the disk, and its last lines kept in memory to explain a crash in the tool error.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TailBuffer } from '../../execution/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../util/private-store.js';

/** What one server may write to its log; past it, one line says how much was dropped. */
export const STDERR_LOG_MAX_BYTES = 256 * 1024;
const TAIL_CHARS = 2_000;

export class StderrLog {
  readonly path: string | undefined;
  readonly #redact: (text: string) => string;
  readonly #tail = new TailBuffer(TAIL_CHARS);
  #partial = '';
  #written = 0;
  #dropped = 0;

  /** `dir` absent: nothing is written to disk, only the tail is kept. */
  constructor(dir: string | undefined, server: string, redact: (text: string) => string) {
    this.#redact = redact;
    if (dir !== undefined) {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      this.path = join(dir, `${server}.stderr.log`);
    }
  }

  /** A chunk of stderr; whole lines are redacted and kept, a partial line waits for its end. */
  push(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    // A "line" that never ends (a progress bar) is kept in pieces.
    if (this.#partial.length > TAIL_CHARS) {
      lines.push(this.#partial);
      this.#partial = '';
    }
    this.#keep(lines);
  }

  /** The last lines, redacted (for a tool error or a notice). */
  tail(): string {
    return (this.#tail.text() + this.#redact(this.#partial)).trim();
  }

  /** Writes what is left of a partial line and the dropped-bytes note. */
  close(): void {
    if (this.#partial !== '') this.#keep([this.#partial]);
    this.#partial = '';
    if (this.#dropped > 0) this.#append(`[… ${this.#dropped} bytes of stderr dropped: the log is capped …]\n`, true);
    this.#dropped = 0;
  }

  #keep(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const text = `${lines.map((line) => this.#redact(line)).join('\n')}\n`;
    this.#tail.push(text);
    this.#append(text, false);
  }

  #append(text: string, always: boolean): void {
    if (this.path === undefined) return;
    const bytes = Buffer.byteLength(text);
    if (!always && this.#written + bytes > STDERR_LOG_MAX_BYTES) {
      this.#dropped += bytes;
      return;
    }
    try {
      appendFileSync(this.path, text, { mode: PRIVATE_FILE_MODE });
      this.#written += bytes;
    } catch {
      // A log that cannot be written loses the log, never the session.
    }
  }
}
