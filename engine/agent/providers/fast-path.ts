/**
 * The text-delta fast path shared by the adapters. A streamed reply is hundreds of events that
 * each carry a few characters of text, and parsing every one in full is most of what reading a
 * reply costs. These helpers read a delta without parsing its event. Each answers `undefined` —
 * "parse it in full" — unless a full parse would certainly give the same result, so they may
 * decline anything (an unusual shape, whitespace, a malformed string) but never misread.
 *
 * Fixed shapes are matched with regular expressions built from the JSON grammar below: V8
 * compiles them to native code, and a match costs a fraction of JSON.parse.
 */

import type { SseFastPath } from '../http/sse.js';

/** The body of a JSON string (between the quotes), exactly as JSON allows it. */
export const JSON_STRING_BODY = String.raw`(?:[^"\\\x00-\x1f]|\\(?:["\\\/bfnrt]|u[0-9a-fA-F]{4}))*`;
/** A JSON number. */
const JSON_NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
/** A JSON value that is not an array or object, or an empty one. */
export const JSON_FLAT_VALUE = String.raw`(?:"${JSON_STRING_BODY}"|${JSON_NUMBER}|true|false|null|\[\]|\{\})`;
/** A non-negative integer as JSON writes it, small enough to be an index. */
export const JSON_INDEX = String.raw`(?:0|[1-9]\d{0,8})`;

/**
 * A whole SSE event whose data matches `json` (a pattern for one line of JSON), as it stands in
 * the stream: an optional `event:` line (its name does not matter: every adapter reads the type
 * from the data), the `data:` line, the blank line. Sticky, for {@link SseFastPath} readers:
 * set `lastIndex` to where the event starts, and it ends at `lastIndex` after a match.
 */
export function sseEventPattern(json: string): RegExp {
  return new RegExp(`(?:event: [^\\n]*\\n)?data: ${json}\\n\\n`, 'y');
}

/** The string a body matched by {@link JSON_STRING_BODY} stands for. */
export function decodeStringBody(raw: string): string {
  return raw.indexOf('\\') === -1 ? raw : (JSON.parse(`"${raw}"`) as string);
}

/**
 * The string that `text[start, end)` stands for as the body of a JSON string, or undefined when
 * it is not a valid body (an unescaped quote, a raw control character, a bad escape).
 */
export function jsonStringBody(text: string, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) {
      try {
        return JSON.parse(`"${text.slice(start, end)}"`) as string;
      } catch {
        return undefined;
      }
    }
    if (c === 34 || c < 32) return undefined;
  }
  return text.slice(start, end);
}

/**
 * Whether `part` occurs in `text` at `pos`. Comparing a slice is several times faster than
 * `startsWith` for the long prefixes compared here (V8 compares the slice as memory).
 */
function hasAt(text: string, part: string, pos: number): boolean {
  return text.length >= pos + part.length && text.slice(pos, pos + part.length) === part;
}

/**
 * Where the JSON string body at `text[from]` ends: the index of its closing quote when the body
 * has no escape, `-2 - index` when it has one (its escapes are skipped, not checked: decoding
 * checks them), and -1 at a raw control character or the end of `text`. One scan tells both, so a
 * delta without escapes — nearly all of them — is sliced as it stands, not scanned again.
 */
function closingQuote(text: string, from: number): number {
  let escaped = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) return escaped ? -2 - i : i;
    if (c === 92) {
      escaped = true;
      i++;
    } else if (c < 32) return -1;
  }
  return -1;
}

/** The closing quote's index from what {@link closingQuote} answered (not -1). */
function quoteIndex(found: number): number {
  return found < -1 ? -2 - found : found;
}

/**
 * The string `text[start, close)` stands for, given what {@link closingQuote} answered for it:
 * the slice itself when the body has no escape, else the decoded body (undefined: a bad escape).
 */
function bodyValue(text: string, start: number, found: number): string | undefined {
  return found >= 0 ? text.slice(start, found) : jsonStringBody(text, start, quoteIndex(found));
}

/** How many events a stream may offer before the template stops trying to learn its shape. */
const MAX_LEARN_ATTEMPTS = 4;

/**
 * The shape of one stream's text deltas, learned from the stream itself. Many servers send one
 * JSON document per delta in which only the text changes (id, model, timestamps stay the same).
 * Once a fully parsed event has shown such a document, a later event that is the same document
 * with another valid string in the text's place is recognised by comparing the characters around
 * it. That is exact: the characters before the hole tokenize as they did and open the same
 * string, a valid string body closes it where it closed before, and the characters after it then
 * tokenize as they did too — so a full parse would differ only in that one string. A counter
 * (a key the caller ignores, whose integer the server bumps in every event) is a second hole
 * that only a JSON integer fills, so the same holds for it.
 */
export class DeltaTemplate {
  /**
   * Everything up to and including the text's opening quote — or, when the document has a
   * counter, up to the counter's digits, and {@link #afterCounter} is the rest up to the quote.
   */
  #lead: string | undefined;
  #afterCounter: string | undefined;
  /** Everything from the text's closing quote on. */
  #suffix = '';
  /** The lead and suffix as they stand in the stream: `[event: …\n]data: ` before, the blank line after. */
  #wireLead = '';
  #wireSuffix = '';
  /** What stands between two holes of consecutive events: one event's end, the next one's start. */
  #joint = '';
  #attempts = 0;

  /** Whether it would still learn from an event (it stops after a few tries). */
  get learning(): boolean {
    return this.#attempts < MAX_LEARN_ATTEMPTS;
  }

  /** The text of `data` when it is the learned document with another string in the text's place. */
  match(data: string): string | undefined {
    const lead = this.#lead;
    if (lead === undefined || !hasAt(data, lead, 0)) return undefined;
    const at = this.#skipCounter(data, lead.length);
    const end = data.length - this.#suffix.length;
    if (at === -1 || end < at || !hasAt(data, this.#suffix, end)) return undefined;
    return jsonStringBody(data, at, end);
  }

  /**
   * Reads the run of SSE events at `text[start]` that are each the learned event (its `event:`
   * line, if it had one, `data: <the learned document>` and the blank line) with another valid
   * string in the text's place — and another counter, when it has one — and hands `onText` their
   * texts joined, once: every event of the run appends to the same place, so appending the whole
   * is the same as appending each in turn, and a read of a hundred deltas then costs the caller
   * one append, not a hundred. Answers where the run ends (just past its last event), or -1 (and
   * `onText` is not called) when the event at `start` is not one. Each event after the first costs
   * one comparison (two with a counter): one event's end and the next one's start are one
   * constant string between two holes. An event of another shape, or cut off by the end of
   * `text`, ends the run before it.
   */
  readRun(text: string, start: number, onText: (text: string) => void): number {
    if (this.#lead === undefined || !hasAt(text, this.#wireLead, start)) return -1;
    let end = -1;
    let run = '';
    for (let at = start + this.#wireLead.length; ;) {
      const hole = this.#skipCounter(text, at);
      if (hole === -1) break;
      const found = closingQuote(text, hole);
      if (found === -1) break;
      const close = quoteIndex(found);
      const joined = hasAt(text, this.#joint, close);
      if (!joined && !hasAt(text, this.#wireSuffix, close)) break;
      const value = bodyValue(text, hole, found);
      if (value === undefined) break;
      run += value;
      end = close + this.#wireSuffix.length;
      if (!joined) break;
      at = close + this.#joint.length;
    }
    if (end !== -1) onText(run);
    return end;
  }

  /** Where the text's hole starts, given where the lead ends: past the counter, if there is one; -1 when it does not fit. */
  #skipCounter(text: string, at: number): number {
    const after = this.#afterCounter;
    if (after === undefined) return at;
    const digits = integerEnd(text, at);
    return digits !== -1 && hasAt(text, after, digits) ? digits + after.length : -1;
  }

  /**
   * Learns from `data`, an event that was parsed in full and whose only effect was to append
   * `text` (the caller vouches for that: nothing else in the event may matter). Nothing is learned
   * from an empty text, or when another string in the event has the same value, since which one
   * is the text would then be a guess. A stream whose deltas never repeat one shape stops being
   * studied after a few events. Answers whether it learned: the template then stands for `data`.
   *
   * `shape.event` is the event's `event:` name, when it had one. `shape.counter` names a key whose
   * integer value the caller ignores and the server counts up in every event (`sequence_number`):
   * when it stands once before the text, any integer in its place still matches.
   */
  learn(data: string, text: string, shape: { event?: string; counter?: string } = {}): boolean {
    if (text === '' || this.#attempts >= MAX_LEARN_ATTEMPTS) return false;
    this.#attempts++;
    const hole = uniqueString(data, text);
    if (hole === undefined) return false;
    let lead = data.slice(0, hole.start);
    let afterCounter: string | undefined;
    const key = shape.counter === undefined ? -1 : lead.indexOf(`"${shape.counter}":`);
    if (key !== -1 && lead.indexOf(`"${shape.counter}":`, key + 1) === -1) {
      const digits = key + shape.counter!.length + 3;
      const after = integerEnd(lead, digits);
      if (after !== -1) {
        afterCounter = lead.slice(after);
        lead = lead.slice(0, digits);
      }
    }
    this.#lead = lead;
    this.#afterCounter = afterCounter;
    this.#suffix = data.slice(hole.end);
    this.#wireLead = `${shape.event ? `event: ${shape.event}\n` : ''}data: ${lead}`;
    this.#wireSuffix = `${this.#suffix}\n\n`;
    this.#joint = this.#wireSuffix + this.#wireLead;
    return true;
  }
}

/** Where the non-negative JSON integer at `text[at]` ends, or -1 when there is none there. */
function integerEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 48) return at + 1;
  if (!(first >= 49 && first <= 57)) return -1;
  let end = at + 1;
  for (let c = text.charCodeAt(end); c >= 48 && c <= 57; c = text.charCodeAt(++end));
  return end;
}

/** A delta a pattern read: its text, and how to apply a text the way it applies its own. */
export type DeltaFound = (text: string, apply: (text: string) => void) => void;

/** How many delta events the pattern may read after the template declined them before it is dropped. */
const MAX_TEMPLATE_MISSES = 8;

/**
 * A fast path for an adapter whose delta events a regular expression recognises (`pattern`, a
 * sticky {@link sseEventPattern}). The pattern reads an event, and the first one it reads teaches
 * a {@link DeltaTemplate} the stream's own shape, which then reads the deltas after it as runs,
 * more cheaply still. `read` decodes the matched event's data `text[start, end)` and hands
 * `found` its text and how to apply a text the way the event applies it; applying it is left to
 * this reader, which keeps the function so the template can take over.
 * A delta the template declines teaches it again (another block, another type); a stream whose
 * deltas keep differing (a random field in each) soon stops trying it.
 */
export function patternThenTemplate(
  pattern: RegExp,
  read: (text: string, start: number, end: number, found: DeltaFound) => void,
  counter?: string,
): SseFastPath {
  const template = new DeltaTemplate();
  let apply: (text: string) => void = () => {};
  const onText = (text: string): void => apply(text);
  let state: 'learning' | 'reading' | 'off' = 'learning';
  let misses = 0;
  return (text, start) => {
    if (state === 'reading') {
      const run = template.readRun(text, start, onText);
      if (run !== -1) return run;
    }
    pattern.lastIndex = start;
    if (!pattern.test(text)) return -1;
    const next = pattern.lastIndex;
    // An `event:` line (which starts with `e`) comes first when there is one.
    const named = text.charCodeAt(start) === 101;
    const data = (named ? text.indexOf('\n', start) + 1 : start) + 'data: '.length;
    read(text, data, next - 2, (value, applyValue) => {
      applyValue(value);
      if (state === 'reading' && ++misses > MAX_TEMPLATE_MISSES) state = 'off';
      if (state === 'off' || !template.learning) return;
      const event = named ? text.slice(start + 'event: '.length, data - 'data: '.length - 1) : '';
      if (template.learn(text.slice(data, next - 2), value, { event, ...(counter !== undefined ? { counter } : {}) })) {
        apply = applyValue;
        state = 'reading';
      }
    });
    return next;
  };
}

/**
 * The body bounds of the one string token in `json` (valid JSON) whose value is `value`, keys
 * included; undefined when there is none or more than one.
 */
function uniqueString(json: string, value: string): { start: number; end: number } | undefined {
  let found: { start: number; end: number } | undefined;
  // Outside strings, every quote of valid JSON opens one.
  for (let open = json.indexOf('"'); open !== -1; open = json.indexOf('"', open + 1)) {
    const quote = closingQuote(json, open + 1);
    if (quote === -1) return undefined;
    const close = quoteIndex(quote);
    if (bodyValue(json, open + 1, quote) === value) {
      if (found !== undefined) return undefined;
      found = { start: open + 1, end: close };
    }
    open = close;
  }
  return found;
}
