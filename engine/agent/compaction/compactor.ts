/** The compaction seam: before each provider call, the loop offers the transcript to a compactor. */
import type { Effort } from '../../definitions/index.js';
import type { Message } from '../messages.js';
import type { AgentUsage } from '../usage.js';

export interface CompactionInput {
  messages: readonly Message[];
  system: string;
  /** The loop's best estimate of the tokens the next request would carry. */
  contextTokens: number;
  model: string;
  effort?: Effort;
  signal: AbortSignal;
}

/** A rewritten transcript and the usage of the call that produced it (counted once, by the loop). */
export interface CompactionResult {
  messages: Message[];
  usage: AgentUsage;
  summarizedMessages: number;
}

export interface Compactor {
  /** Undefined when nothing needs compacting. */
  compact(input: CompactionInput): Promise<CompactionResult | undefined>;
}
