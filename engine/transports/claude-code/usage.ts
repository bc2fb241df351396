import type { Usage } from '../types.js';
import { asObject, resultUsage } from './translate.js';

type Json = Record<string, unknown>;

/**
 * Each API call's usage as Claude Code streams it. Every content block of a message is its own
 * `assistant` line carrying the message's usage so far (input counted once, output growing), and
 * several lines share one message id: the growth per message id is what was spent since the last
 * line. Subagents' calls are left out, as the turn's `result.usage` leaves them out.
 */
export class StreamedUsage {
  readonly #seen = new Map<string, Required<Pick<Usage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'>>>();

  /** The spending one `assistant` line shows beyond what earlier lines of its message did. */
  observe(line: Json): Usage | undefined {
    if (line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined) return undefined;
    const message = asObject(line.message);
    const usage = message === undefined ? undefined : resultUsage(message);
    if (message === undefined || usage === undefined || typeof message.id !== 'string') return undefined;
    const now = {
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      cachedInputTokens: usage.cachedInputTokens ?? 0,
    };
    const before = this.#seen.get(message.id) ?? { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    this.#seen.set(message.id, now);
    const growth = {
      inputTokens: Math.max(0, now.inputTokens - before.inputTokens),
      outputTokens: Math.max(0, now.outputTokens - before.outputTokens),
      cachedInputTokens: Math.max(0, now.cachedInputTokens - before.cachedInputTokens),
    };
    return growth.inputTokens + growth.outputTokens === 0 ? undefined : growth;
  }

  /** The turn is over: its messages will not stream again. */
  reset(): void {
    this.#seen.clear();
  }
}
