/**
 * The provider-neutral transcript: what the agent loop owns and every provider adapter translates
 * to and from its own wire format. Reasoning stays apart from text; provider-specific replay data
 * (signatures, encrypted reasoning) rides along opaquely and is sent back only to the API that
 * produced it.
 */
import type { Effort } from '../definitions/index.js';
import type { AgentUsage } from './usage.js';

/** The wire APIs neo's agent speaks. */
export type ProviderApi = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

/** Opaque data a provider needs to replay a block to itself (never shown, never sent elsewhere). */
export interface ReplayData {
  api: ProviderApi;
  data: Record<string, unknown>;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ReasoningBlock {
  type: 'reasoning';
  text: string;
  replay?: ReplayData;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  replay?: ReplayData;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  /** The tool's name, kept for APIs that key results by name (Gemini). */
  name: string;
  content: string;
  isError: boolean;
  /** A note that must survive compaction (an answered clarification). */
  pinned?: string;
}

export type ContentBlock = TextBlock | ReasoningBlock | ToolUseBlock | ToolResultBlock;

/** Why a message is kept verbatim through compaction. */
export type PinKind = 'guidance' | 'clarification' | 'summary';

export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  /** Pinned messages (guidance, the compaction summary) are never summarized away. */
  pin?: PinKind;
}

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: Record<string, unknown>;
}

/** Why the model stopped, normalized across APIs. `unknown` keeps the raw value in the response. */
export type StopReason =
  'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'pause_turn' | 'context_window_exceeded' | 'unknown';

/** One call to a model. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxOutputTokens: number;
  effort?: Effort;
}

/** One complete model response. */
export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  /** The API's own stop reason, for errors and logs. */
  rawStopReason: string;
  usage: AgentUsage;
  /** The model id the API reports, when it reports one. */
  model?: string;
}

/** Live deltas while a response streams. */
export interface StreamSink {
  text?(delta: string): void;
  reasoning?(delta: string): void;
}

/** The text of every text block, joined. */
export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** The tool calls of a response, in order. */
export function toolUsesOf(blocks: readonly ContentBlock[]): ToolUseBlock[] {
  return blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * Merges consecutive messages of the same role. The transcript may hold a summary, pinned notes
 * and a user turn back to back; every API wants roles to alternate.
 */
export function mergeRoles(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (last !== undefined && last.role === message.role) {
      // Tool results must lead a user message (Anthropic rejects text before them).
      const blocks = [...last.content, ...message.content];
      const results = blocks.filter((b) => b.type === 'tool_result');
      const rest = blocks.filter((b) => b.type !== 'tool_result');
      out[out.length - 1] = { role: last.role, content: [...results, ...rest] };
    } else {
      out.push({ role: message.role, content: [...message.content] });
    }
  }
  return out;
}
