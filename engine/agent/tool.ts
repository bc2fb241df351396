/**
 * What the agent loop needs of a tool: the spec the model sees, what kind of effect running it
 * has (the posture gate asks about writes and commands), and a function that runs it. Tools are
 * injected; the loop has no built-in ones.
 */
import type { ToolSpec, ToolUseBlock } from './messages.js';
import type { AgentUsage } from './usage.js';

/** read: no side effects; write: changes files; exec: runs a command. */
export type ToolEffect = 'read' | 'write' | 'exec';

export interface ToolContext {
  /** Aborts when the turn is interrupted or the session stops. */
  signal: AbortSignal;
}

export interface ToolResult {
  output: string;
  isError: boolean;
  /** Tokens the tool spent on model calls (a child agent's), rolled into the caller's usage once. */
  usage?: AgentUsage;
}

export interface AgentTool {
  readonly spec: ToolSpec;
  readonly effect: ToolEffect;
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/** The approval hook's answer. `pinned` is kept through compaction (an answered question). */
export type ApprovalDecision = { allow: true; pinned?: string } | { allow: false; message: string; pinned?: string };

/** Decides whether one tool call may run (the posture gate, an interactive prompt). */
export type ToolApprover = (request: {
  tool: AgentTool;
  call: ToolUseBlock;
  input: Record<string, unknown>;
  signal: AbortSignal;
}) => Promise<ApprovalDecision>;

/** A tool input error: reported to the model as a tool error, not thrown out of the loop. */
export class ToolInputError extends Error {}

/** Reads a required string field. */
export function requireString(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value === '')
    throw new ToolInputError(`"${field}" is required and must be a non-empty string`);
  return value;
}

/** Reads an optional string field. */
export function optionalString(input: Record<string, unknown>, field: string): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolInputError(`"${field}" must be a string`);
  return value;
}

/** Reads an optional positive integer field. */
export function optionalInt(input: Record<string, unknown>, field: string, min = 0): number | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new ToolInputError(`"${field}" must be an integer ≥ ${min}`);
  return value;
}

/** Reads an optional boolean field. */
export function optionalBool(input: Record<string, unknown>, field: string): boolean | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ToolInputError(`"${field}" must be true or false`);
  return value;
}
