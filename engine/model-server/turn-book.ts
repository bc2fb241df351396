import type { ModelScript, Reply, TextMatch, ToolResultMatch, Turn, When } from '../generated/model-script.js';
import type { RequestView, ToolResultView } from './request-view.js';

/** Which part of the script answers a request. */
export type Pick =
  | { source: 'turn'; index: number; reply: Reply }
  | { source: 'aux' }
  | { source: 'fallback'; reply: Reply | undefined };

/** Where a script stands: how often each turn was used and what is left. */
export interface TurnBookState {
  /** Per turn, how many requests it answered. */
  used: number[];
  /** Index of the first turn with uses left, if any. */
  next?: number;
  /** Main requests nothing matched. */
  unmatched: number;
}

/**
 * The script's turns and how many uses each has left. A main request takes the first turn (in
 * script order) with uses left whose `when` matches it; a script without rules is therefore plain
 * sequential. Pure: no I/O, no clock.
 */
export class TurnBook {
  readonly script: ModelScript;
  readonly #used: number[];
  #unmatched = 0;

  constructor(script: ModelScript) {
    this.script = script;
    this.#used = script.turns.map(() => 0);
  }

  /** True when the request counts as auxiliary: it offers no tools (unless `aux.detect: never`). */
  isAux(view: RequestView): boolean {
    return (this.script.aux?.detect ?? 'no-tools') === 'no-tools' && view.tools.length === 0;
  }

  /** Chooses the reply for a request and records the use. */
  pick(view: RequestView): Pick {
    if (this.isAux(view)) return { source: 'aux' };
    for (const [index, turn] of this.script.turns.entries()) {
      if (!hasUsesLeft(turn, this.#used[index]!)) continue;
      if (turn.when !== undefined && !whenMatches(turn.when, view)) continue;
      this.#used[index]!++;
      return { source: 'turn', index, reply: turn };
    }
    this.#unmatched++;
    return { source: 'fallback', reply: this.script.fallback };
  }

  state(): TurnBookState {
    const next = this.script.turns.findIndex((turn, i) => hasUsesLeft(turn, this.#used[i]!));
    return { used: [...this.#used], ...(next >= 0 ? { next } : {}), unmatched: this.#unmatched };
  }
}

function hasUsesLeft(turn: Turn, used: number): boolean {
  const times = turn.times ?? 1;
  return times === 'always' || used < times;
}

/** True when every condition of `when` holds for the request. */
export function whenMatches(when: When, view: RequestView): boolean {
  if (when.api !== undefined && when.api !== view.api) return false;
  if (when.model !== undefined && !textMatches(when.model, view.model)) return false;
  if (when.toolOffered !== undefined && !view.tools.some((t) => t.name === when.toolOffered)) return false;
  if (when.user !== undefined && (view.lastUser === undefined || !textMatches(when.user, view.lastUser))) return false;
  if (when.toolResult !== undefined && !view.toolResults.some((r) => toolResultMatches(when.toolResult!, r)))
    return false;
  return true;
}

/** A string means "contains"; a map's conditions must all hold. */
export function textMatches(match: TextMatch, text: string): boolean {
  if (typeof match === 'string') return text.includes(match);
  if (match.contains !== undefined && !text.includes(match.contains)) return false;
  if (match.equals !== undefined && text !== match.equals) return false;
  if (match.matches !== undefined && !regex(match.matches)?.test(text)) return false;
  return true;
}

function toolResultMatches(match: ToolResultMatch, result: ToolResultView): boolean {
  if (typeof match === 'string') return result.text.includes(match);
  if (match.isError !== undefined && match.isError !== result.isError) return false;
  if (match.tool !== undefined && match.tool !== result.tool) return false;
  // The text conditions of a tool-result match are those of a text match.
  return textMatches(match, result.text);
}

const compiled = new Map<string, RegExp | undefined>();

/** Compiles (and caches) a script's regular expression; an invalid one never matches. */
function regex(source: string): RegExp | undefined {
  if (!compiled.has(source)) {
    try {
      compiled.set(source, new RegExp(source));
    } catch {
      compiled.set(source, undefined);
    }
  }
  return compiled.get(source);
}
