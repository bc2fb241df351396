/**
 * The summarizing compactor. Past a token threshold it asks the model to summarize everything
 * but the last N turns, and rebuilds the transcript as: the summary, every pinned item verbatim
 * (answered clarifications, guidance — never summarized, so an answered question is never asked
 * again), then the kept turns. The system prompt is not part of the transcript and is untouched.
 * The summary call's usage is returned for the loop to count, once.
 */
import type { Message } from '../messages.js';
import { textOf } from '../messages.js';
import type { Provider } from '../providers/provider.js';
import type { CompactionInput, CompactionResult, Compactor } from './compactor.js';
import { compactionSplit } from './split.js';

const SUMMARY_SYSTEM = `You compress a coding agent's working transcript so the work can continue in a fresh context.
Write a faithful, dense summary: the task and its constraints, decisions made and why, files read and changed (with paths), commands run and their outcomes, errors met and how they were resolved, and what remains to do.
Do not invent anything. Do not address the user. Plain text, no preamble.`;

const MAX_RESULT_CHARS = 2000;
const MAX_RENDER_CHARS = 400_000;

export interface SummarizingCompactorOptions {
  provider: Provider;
  /** Compact when the next request would carry more than this many tokens. */
  thresholdTokens: number;
  /** Turns kept verbatim. */
  keepTurns: number;
  maxSummaryTokens?: number;
}

export class SummarizingCompactor implements Compactor {
  readonly #options: SummarizingCompactorOptions;

  constructor(options: SummarizingCompactorOptions) {
    this.#options = options;
  }

  async compact(input: CompactionInput): Promise<CompactionResult | undefined> {
    if (input.contextTokens < this.#options.thresholdTokens) return undefined;
    const split = compactionSplit(input.messages, this.#options.keepTurns);
    if (split <= 0) return undefined;
    const old = input.messages.slice(0, split);
    const tail = input.messages.slice(split);
    const response = await this.#options.provider.complete(
      {
        model: input.model,
        system: SUMMARY_SYSTEM,
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: `${renderTranscript(old)}\n\nSummarize the transcript above.` }],
          },
        ],
        tools: [],
        maxOutputTokens: this.#options.maxSummaryTokens ?? 4096,
      },
      { signal: input.signal },
    );
    const summary = textOf(response.content).trim() || '(the summary came back empty)';
    const messages: Message[] = [
      {
        role: 'user',
        pin: 'summary',
        content: [
          {
            type: 'text',
            text: `<conversation-summary>\nEarlier work in this session, summarized:\n${summary}\n</conversation-summary>`,
          },
        ],
      },
      ...pinnedItems(old),
      ...tail,
    ];
    return { messages, usage: response.usage, summarizedMessages: old.length };
  }
}

/** Pinned messages and pinned tool-result notes of the summarized part, as user text messages. */
export function pinnedItems(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.pin === 'guidance' || message.pin === 'clarification') {
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      if (text !== '') out.push({ role: 'user', pin: message.pin, content: [{ type: 'text', text }] });
    }
    for (const block of message.content) {
      if (block.type === 'tool_result' && block.pinned !== undefined)
        out.push({ role: 'user', pin: 'clarification', content: [{ type: 'text', text: block.pinned }] });
    }
  }
  return out;
}

/** The transcript as plain text for the summarizer; long tool results are cut. */
export function renderTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text')
        lines.push(
          `${message.pin === 'summary' ? 'Earlier summary' : message.role === 'user' ? 'User' : 'Assistant'}: ${block.text}`,
        );
      else if (block.type === 'tool_use')
        lines.push(
          `Assistant called ${block.name} ${cut(typeof block.input === 'string' ? block.input : JSON.stringify(block.input), MAX_RESULT_CHARS)}`,
        );
      else if (block.type === 'tool_result')
        lines.push(
          `Result of ${block.name}${block.isError ? ' (error)' : ''}: ${cut(block.content, MAX_RESULT_CHARS)}`,
        );
    }
  }
  const text = lines.join('\n\n');
  return text.length > MAX_RENDER_CHARS
    ? `[… earlier part cut …]\n${text.slice(text.length - MAX_RENDER_CHARS)}`
    : text;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}
