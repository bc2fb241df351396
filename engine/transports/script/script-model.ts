import type { Action, Cost, Script, Turn } from '../../generated/script.js';

/** The tool names the script backend reports; the backend descriptor's editToolNames lists the first four. */
export const SCRIPT_EDIT_TOOLS = ['write', 'edit', 'delete', 'rename'] as const;
export const SCRIPT_RUN_TOOL = 'run';

export { ACTION_KEYS } from '../../definitions/index.js';

/** One action, normalized: a discriminated union the player can switch on. */
export type Step =
  | { kind: 'say'; text: string }
  | { kind: 'think'; text: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; search: string; replace: string; all: boolean }
  | { kind: 'delete'; path: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'run'; command: string[] | string; cwd?: string; expectExit: number; env?: Record<string, string> }
  | { kind: 'ask'; toolName: string; input: unknown; onAllow: Step[]; onDeny: Step[] }
  | { kind: 'fail'; message: string; transient: boolean; fatal: boolean }
  | { kind: 'hang' }
  | { kind: 'end'; ok: boolean; text?: string };

/** One turn, normalized, with its position in the script. */
export interface PlayTurn {
  /** 0-based index in `turns`. */
  index: number;
  steps: Step[];
  /** Lower-cased substrings; the prompt must contain one of them. Absent: any prompt. */
  guidanceContains?: string[];
  cost?: Cost;
}

/** A validated script, ready to play. */
export interface ScriptPlan {
  script: Script;
  turns: PlayTurn[];
  /** sha256 of the script text: resume refuses a script that changed. */
  hash: string;
  /** Where it came from (a path, or `<inline>`). */
  file: string;
}

/** Normalizes a schema-valid script (each action already checked to hold exactly one key). */
export function toPlan(script: Script, hash: string, file: string): ScriptPlan {
  return { script, hash, file, turns: script.turns.map((turn, index) => toPlayTurn(turn, index)) };
}

function toPlayTurn(turn: Turn, index: number): PlayTurn {
  if (Array.isArray(turn)) return { index, steps: turn.map(toStep) };
  const contains = turn.when?.guidanceContains;
  const out: PlayTurn = { index, steps: turn.actions.map(toStep) };
  if (contains !== undefined)
    out.guidanceContains = (typeof contains === 'string' ? [contains] : contains).map((s) => s.toLowerCase());
  if (turn.cost !== undefined) out.cost = turn.cost;
  return out;
}

function toStep(action: Action): Step {
  if (action.say !== undefined) return { kind: 'say', text: action.say };
  if (action.think !== undefined) return { kind: 'think', text: action.think };
  if (action.write !== undefined) return { kind: 'write', path: action.write.path, content: action.write.content };
  if (action.edit !== undefined)
    return {
      kind: 'edit',
      path: action.edit.path,
      search: action.edit.search,
      replace: action.edit.replace,
      all: action.edit.all ?? false,
    };
  if (action.delete !== undefined) return { kind: 'delete', path: action.delete.path };
  if (action.rename !== undefined) return { kind: 'rename', from: action.rename.from, to: action.rename.to };
  if (action.run !== undefined) {
    const { command, cwd, expectExit, env } = action.run;
    const step: Step = {
      kind: 'run',
      command: typeof command === 'string' ? command : [...command],
      expectExit: expectExit ?? 0,
    };
    if (cwd !== undefined) step.cwd = cwd;
    if (env !== undefined) step.env = env;
    return step;
  }
  if (action.ask !== undefined) {
    const { toolName, input, onAllow, onDeny } = action.ask;
    return { kind: 'ask', toolName, input, onAllow: (onAllow ?? []).map(toStep), onDeny: (onDeny ?? []).map(toStep) };
  }
  if (action.fail !== undefined)
    return {
      kind: 'fail',
      message: action.fail.message,
      transient: action.fail.transient ?? false,
      fatal: action.fail.fatal ?? false,
    };
  if ('hang' in action) return { kind: 'hang' };
  if ('end' in action) {
    const step: Step = { kind: 'end', ok: action.end?.ok ?? true };
    if (action.end?.text !== undefined) step.text = action.end.text;
    return step;
  }
  // Unreachable after validation: the loader rejects an item without an action key.
  throw new Error('script action without an action key');
}
