/** What the agent loop reports while it works. Deltas stream live; whole blocks follow each response. */
import type { StopReason } from './messages.js';
import type { AgentUsage } from './usage.js';

/** How a turn (one `send`) ended. */
export interface TurnResult {
  /** The last response's text (the refusal text for a refusal). */
  text: string;
  stopReason: StopReason | 'max_turns';
  /** Provider calls in this turn, compaction excluded. */
  modelCalls: number;
  /** Tokens this turn used, compaction calls included, each counted once. */
  usage: AgentUsage;
}

export type AgentLoopEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; output: string; isError: boolean }
  | { type: 'usage'; usage: AgentUsage; source: 'model' | 'compaction' | 'subagent'; model?: string }
  | { type: 'compacted'; summarizedMessages: number; keptMessages: number }
  | { type: 'turn_end'; result: TurnResult }
  | { type: 'error'; error: Error };
