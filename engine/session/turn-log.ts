/**
 * What the agent said and did in the current turn: the text and one-line action summaries a
 * turn_complete reports. Pure, and cheap per event (an array push).
 */

/** Inputs whose value best names what a tool call did, in order of preference. */
const SUBJECT_KEYS = [
  'path',
  'file_path',
  'filePath',
  'command',
  'cmd',
  'pattern',
  'url',
  'query',
  'to',
  'description',
] as const;

/** Per-turn caps: a turn_complete stays readable even after a very chatty turn. */
const MAX_ACTIONS = 50;
const MAX_TEXT_CHARS = 16 * 1024;

export class TurnLog {
  #texts: string[] = [];
  #actions: string[] = [];
  #omittedActions = 0;
  #toolIndex = new Map<string, number>();

  addText(text: string): void {
    this.#texts.push(text);
  }

  addToolUse(id: string, name: string, input: unknown): void {
    if (this.#actions.length >= MAX_ACTIONS) {
      this.#omittedActions++;
      return;
    }
    this.#toolIndex.set(id, this.#actions.length);
    this.#actions.push(describeToolUse(name, input));
  }

  addToolResult(id: string, isError: boolean): void {
    if (!isError) return;
    const index = this.#toolIndex.get(id);
    if (index !== undefined) this.#actions[index] = `${this.#actions[index]} (failed)`;
  }

  /** The turn's text: the transport's own final text when it gave one, else the text events. */
  text(finalText?: string): string {
    const text = finalText !== undefined && finalText !== '' ? finalText : this.#texts.join('\n');
    return text.length <= MAX_TEXT_CHARS
      ? text
      : `${text.slice(0, MAX_TEXT_CHARS)}\n… (${text.length - MAX_TEXT_CHARS} more characters in events.jsonl)`;
  }

  actions(): string[] {
    return this.#omittedActions === 0
      ? [...this.#actions]
      : [...this.#actions, `… ${this.#omittedActions} more tool calls in events.jsonl`];
  }

  /** Starts the next turn. */
  reset(): void {
    this.#texts = [];
    this.#actions = [];
    this.#omittedActions = 0;
    this.#toolIndex = new Map();
  }
}

/** `Write src/a.ts`, `Bash npm test`, or just the tool name. */
export function describeToolUse(name: string, input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const record = input as Record<string, unknown>;
    for (const key of SUBJECT_KEYS) {
      const value = record[key];
      if (typeof value === 'string' && value !== '') return `${name} ${oneLine(value)}`;
      if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
        return `${name} ${oneLine(value.join(' '))}`;
    }
  }
  return name;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 120 ? flat : `${flat.slice(0, 119)}…`;
}
