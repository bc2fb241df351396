/**
 * Reassembles a streamed response into content blocks. Every API streams blocks (text, reasoning,
 * tool calls) as fragments keyed by an index; fragments of one block may interleave with other
 * blocks. Slots are kept by index and emitted in index order once the stream ends, so the block
 * order is stable whatever order the fragments came in.
 */
import { streamError } from '../errors.js';
import type { ContentBlock, ProviderApi, ReplayData } from '../messages.js';

type Slot =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; replay?: ReplayData }
  | { kind: 'tool'; id: string; name: string; args: string; input?: unknown; replay?: ReplayData };

export class BlockAssembler {
  readonly #slots = new Map<number, Slot>();
  readonly #provider: string;
  readonly #api: ProviderApi;

  constructor(provider: string, api: ProviderApi) {
    this.#provider = provider;
    this.#api = api;
  }

  text(index: number, delta: string): void {
    const slot = this.#slots.get(index);
    if (slot?.kind === 'text') slot.text += delta;
    else this.#slots.set(index, { kind: 'text', text: delta });
  }

  /** Replaces a text slot's whole text (an API's authoritative `done` event). */
  setText(index: number, text: string): void {
    this.#slots.set(index, { kind: 'text', text });
  }

  reasoning(index: number, delta: string): void {
    const slot = this.#slots.get(index);
    if (slot?.kind === 'reasoning') slot.text += delta;
    else this.#slots.set(index, { kind: 'reasoning', text: delta });
  }

  /** Adds a fragment of a tool call: its id and name arrive once, its arguments in pieces. */
  tool(index: number, fragment: { id?: string; name?: string; args?: string }): void {
    let slot = this.#slots.get(index);
    if (slot?.kind !== 'tool') {
      slot = { kind: 'tool', id: '', name: '', args: '' };
      this.#slots.set(index, slot);
    }
    if (fragment.id) slot.id = fragment.id;
    if (fragment.name)
      slot.name = slot.name === '' || slot.name === fragment.name ? fragment.name : slot.name + fragment.name;
    if (fragment.args) slot.args += fragment.args;
  }

  /** Sets a tool call's arguments whole (replacing fragments) or its already-parsed input. */
  setToolArgs(index: number, args: { json?: string; input?: unknown }): void {
    const slot = this.#slots.get(index);
    if (slot?.kind !== 'tool') return;
    if (args.json !== undefined) slot.args = args.json;
    if (args.input !== undefined) slot.input = args.input;
  }

  /** Attaches replay data to a reasoning or tool slot. */
  replay(index: number, data: Record<string, unknown>): void {
    const slot = this.#slots.get(index);
    if (slot === undefined) {
      this.#slots.set(index, { kind: 'reasoning', text: '', replay: { api: this.#api, data } });
      return;
    }
    if (slot.kind === 'text') return;
    slot.replay = { api: this.#api, data: { ...slot.replay?.data, ...data } };
  }

  has(index: number): boolean {
    return this.#slots.has(index);
  }

  get toolCount(): number {
    let n = 0;
    for (const slot of this.#slots.values()) if (slot.kind === 'tool') n++;
    return n;
  }

  /** The blocks in index order; empty text and reasoning without replay data are dropped. */
  blocks(): ContentBlock[] {
    const out: ContentBlock[] = [];
    const indexes = [...this.#slots.keys()].sort((a, b) => a - b);
    let toolNumber = 0;
    for (const index of indexes) {
      const slot = this.#slots.get(index)!;
      if (slot.kind === 'text') {
        if (slot.text !== '') out.push({ type: 'text', text: slot.text });
      } else if (slot.kind === 'reasoning') {
        if (slot.text !== '' || slot.replay !== undefined)
          out.push({ type: 'reasoning', text: slot.text, ...(slot.replay ? { replay: slot.replay } : {}) });
      } else {
        toolNumber++;
        if (slot.name === '') throw streamError(this.#provider, `tool call at index ${index} has no name`);
        const input = slot.input !== undefined ? slot.input : this.#parseArgs(slot.args);
        out.push({
          type: 'tool_use',
          id: slot.id !== '' ? slot.id : `call_${toolNumber}`,
          name: slot.name,
          input,
          ...(slot.replay ? { replay: slot.replay } : {}),
        });
      }
    }
    return out;
  }

  /**
   * Arguments that are not valid JSON are the model's mistake, not the stream's: they stay a raw
   * string, and the tool runner answers with an error the model can correct.
   */
  #parseArgs(args: string): unknown {
    if (args.trim() === '') return {};
    try {
      return JSON.parse(args);
    } catch {
      return args;
    }
  }
}
