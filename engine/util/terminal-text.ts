/**
 * The one sanitiser for text a person reads in a terminal. What an agent, a tool or a project
 * file says is data: an escape sequence in it could set the window title, clear the screen, move
 * the cursor over an earlier line or hide text, so every human-facing output path (session read,
 * sessions show/tail, flow run, persona run, prompts, summaries, errors) passes its strings
 * through {@link terminalSafe}: escape sequences (CSI, OSC, DCS/APC/PM/SOS, C1) are removed
 * whole, other control characters (a carriage return too) and bidirectional overrides dropped —
 * newlines and tabs kept — and secrets redacted with the one redactor. neo's own colours are added
 * after, around text that is already safe. `--json` output needs no sanitiser (JSON escapes
 * control characters) but passes the same redactor (cli/io.ts).
 */
import { processRedact, redactDeep } from './redact.js';

const ESCAPE_SEQUENCE = new RegExp(
  [
    String.raw`\u001b\[[0-?]*[ -/]*[@-~]?`, // CSI: colours, cursor moves, screen clears
    String.raw`\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?`, // OSC: window title, hyperlinks, clipboard
    String.raw`\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?`, // DCS, SOS, PM, APC
    String.raw`\u001b[ -/]*[0-~]?`, // any other ESC sequence, or a lone ESC
    String.raw`\u009b[0-?]*[ -/]*[@-~]?`, // CSI as one C1 byte
    String.raw`[\u0090\u0098\u009d-\u009f][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?`, // DCS/SOS/OSC/PM/APC as C1
  ].join('|'),
  'g',
);

/** Control characters but newline and tab; DEL and C1; bidirectional embeddings, overrides and isolates. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * `text` without its escape sequences (colours, cursor moves), nothing else changed: for
 * matching what a CLI prints for a terminal (codex colours its log unless NO_COLOR is set)
 * against patterns written for plain text. The same sequences {@link terminalSafe} removes.
 */
export function stripEscapes(text: string): string {
  return text.includes('\u001b') || /[\u0090-\u009f]/.test(text) ? text.replace(ESCAPE_SEQUENCE, '') : text;
}

/** `text` safe to print: no escape sequence, no control character but newline and tab, no secret. */
export function terminalSafe(text: string): string {
  const plain = NEEDS_WORK.test(text) ? text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '') : text;
  return processRedact()(plain);
}

/** Every string inside `value` made {@link terminalSafe} (a record, an event, a result before it is rendered). */
export function terminalSafeDeep<T>(value: T): T {
  return redactDeep(value, terminalSafe);
}

/**
 * Safe text printed where neo prints one item a line (`neo flow run`, its summary, `neo flow
 * show`): every further line starts indented behind a bar, so what a step printed (a failing
 * command's last lines are in its error message) never starts a line where neo's own lines
 * start — a forged `✓ … succeeded` or `merge it:` line. `text` has been through {@link terminalSafe}.
 */
export function continued(text: string): string {
  return text.replace(/\n/g, '\n      │ ');
}

/** Safe text on one line, for a tree redrawn in place (it counts its lines). */
export function oneLine(text: string): string {
  return text.replace(/\n/g, ' ⏎ ');
}
