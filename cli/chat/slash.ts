/**
 * The chat's slash-commands. Those that are features of the agent (undo, reset, the checklist,
 * the session list) are ops of the session contract: the chat calls the op when this neo's
 * contract has it and the backend takes it, and says "not available" otherwise — it never
 * implements them itself.
 */
import { OPS } from '../../engine/session/index.js';

/** A slash-command backed by a session op that a backend may or may not offer. */
export interface OptionalOp {
  op: string;
  /** Whether the op acts on the chat's session (else on the workspace). */
  needsSession: boolean;
  what: string;
}

export const OPTIONAL_OPS: Readonly<Record<string, OptionalOp>> = {
  undo: { op: 'undo', needsSession: true, what: "revert the last turn's edits" },
  reset: { op: 'reset', needsSession: true, what: 'clear the conversation' },
  checklist: { op: 'checklist', needsSession: true, what: "show the agent's checklist" },
  sessions: { op: 'list-sessions', needsSession: false, what: "list the agent's sessions for this workspace" },
};

/** Whether this neo's op contract has `op` at all. */
export function opInContract(op: string, ops: readonly string[] = OPS): boolean {
  return ops.includes(op);
}

export type SlashCommand =
  | { name: 'help' | 'exit' | 'status' }
  | { name: 'posture'; posture?: string }
  | { name: 'optional'; command: string; spec: OptionalOp }
  | { name: 'unknown'; command: string };

/** Reads a line that starts with `/`. */
export function parseSlash(line: string): SlashCommand {
  const [head = '', ...rest] = line.trim().slice(1).split(/\s+/);
  const command = head.toLowerCase();
  if (command === 'help' || command === '?') return { name: 'help' };
  if (command === 'exit' || command === 'quit') return { name: 'exit' };
  if (command === 'status') return { name: 'status' };
  if (command === 'posture') return rest[0] === undefined ? { name: 'posture' } : { name: 'posture', posture: rest[0] };
  const spec = OPTIONAL_OPS[command];
  if (spec !== undefined) return { name: 'optional', command, spec };
  return { name: 'unknown', command };
}

export function helpLines(): string[] {
  return [
    '/posture [P]   show the posture, or change it (plan, default, acceptEdits, full) within the ceiling',
    '/status        the session: id, backend, posture and ceiling',
    ...Object.entries(OPTIONAL_OPS).map(
      ([name, spec]) => `/${name.padEnd(13)} ${spec.what} (when the backend offers it)`,
    ),
    '/exit          stop the session and exit (also Ctrl-C at the prompt, or Ctrl-D)',
    'Typing while a turn runs steers it; Ctrl-C interrupts the turn, a second Ctrl-C exits.',
  ];
}

/** A result of an op the chat does not know the shape of, printed as `key: value` lines. */
export function genericResultLines(result: unknown): string[] {
  if (typeof result !== 'object' || result === null) return [String(result)];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    if (key === 'ok') continue;
    if (Array.isArray(value)) {
      lines.push(`${key}:`);
      for (const item of value) lines.push(`  - ${typeof item === 'string' ? item : JSON.stringify(item)}`);
    } else lines.push(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return lines.length === 0 ? ['done'] : lines;
}
