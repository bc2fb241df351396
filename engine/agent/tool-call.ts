/**
 * One tool call of a turn, run: the tool looked up, its input checked to be an object holding
 * the fields its schema requires (before the posture gate, which would only see an edit without
 * a path), the approver asked, and any failure turned into an error result the model reads (a cancelled turn
 * stays a cancellation). Also the transcript repair after a turn that ended mid-batch.
 */
import { cancelledError } from './errors.js';
import { toolUsesOf, type Message, type ToolResultBlock, type ToolUseBlock } from './messages.js';
import { ToolInputError, type AgentTool, type ToolApprover, type ToolContext } from './tool.js';
import type { AgentUsage } from './usage.js';
import { defined } from '../util/defined.js';

/** What one call gave: its output for the model, and a child agent's usage to count. */
export interface ToolCallResult {
  output: string;
  isError: boolean;
  pinned?: string;
  usage?: AgentUsage;
}

/** Runs one call; only a cancelled turn throws, every other failure is a result the model reads. */
export async function runToolCall(
  tools: ReadonlyMap<string, AgentTool>,
  approve: ToolApprover | undefined,
  call: ToolUseBlock,
  context: ToolContext,
): Promise<ToolCallResult> {
  const tool = tools.get(call.name);
  if (tool === undefined)
    return { output: `unknown tool "${call.name}"; available: ${[...tools.keys()].join(', ')}`, isError: true };
  if (call.input === null || typeof call.input !== 'object' || Array.isArray(call.input)) {
    return {
      output: `the arguments for ${call.name} must be a JSON object; got ${typeof call.input === 'string' ? `invalid JSON: ${call.input.slice(0, 200)}` : JSON.stringify(call.input)}`,
      isError: true,
    };
  }
  const input = call.input as Record<string, unknown>;
  const missing = missingFields(tool, input);
  if (missing !== undefined) return { output: `invalid input for ${call.name}: ${missing}`, isError: true };
  let pinned: string | undefined;
  if (approve !== undefined) {
    const decision = await approve({ tool, call, input, signal: context.signal });
    pinned = decision.pinned;
    if (!decision.allow) return { output: decision.message, isError: true, ...defined({ pinned }) };
  }
  try {
    const result = await tool.run(input, context);
    return { ...result, ...defined({ pinned }) };
  } catch (error) {
    if (context.signal.aborted) throw cancelledError();
    const message =
      error instanceof ToolInputError
        ? `invalid input for ${call.name}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    return { output: message, isError: true, ...defined({ pinned }) };
  }
}

/** What the call lacks of its schema's `required` fields, said with the fields it gave and those the tool takes. */
function missingFields(tool: AgentTool, input: Record<string, unknown>): string | undefined {
  const schema = tool.spec.inputSchema;
  const required = Array.isArray(schema.required) ? schema.required.filter((f) => typeof f === 'string') : [];
  const absent = required.filter((field) => input[field] === undefined || input[field] === null);
  if (absent.length === 0) return undefined;
  const given = Object.keys(input);
  const known =
    typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : [];
  const names = absent.map((field) => `"${field}"`).join(', ');
  return `${names} ${absent.length === 1 ? 'is' : 'are'} required (given: ${given.length > 0 ? given.join(', ') : 'nothing'})${known.length > 0 ? `; its arguments: ${known.join(', ')}` : ''}`;
}

/**
 * Every tool_use must be answered before the next request, or the API rejects the transcript.
 * After a failed or interrupted turn, unanswered calls get a result saying they did not run.
 */
export function closeDanglingToolUses(messages: Message[]): void {
  const answered = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if (block.type === 'tool_result') answered.add(block.toolUseId);
  const last = messages.findLastIndex((m) => m.role === 'assistant');
  if (last === -1) return;
  const missing = toolUsesOf(messages[last]!.content).filter((c) => !answered.has(c.id));
  if (missing.length === 0) return;
  const results: ToolResultBlock[] = missing.map((c) => ({
    type: 'tool_result',
    toolUseId: c.id,
    name: c.name,
    content: 'not run: the turn ended first',
    isError: true,
  }));
  const next = messages[last + 1];
  if (next !== undefined && next.role === 'user') next.content = [...results, ...next.content];
  else messages.splice(last + 1, 0, { role: 'user', content: results });
}

/** A signal for a turn the caller cannot interrupt. */
export function unabortable(): AbortSignal {
  return new AbortController().signal;
}

/**
 * What the tools of one batch are given. For a turn the caller cannot interrupt, the signal that
 * never aborts is made only when a tool asks for it: most tools (a file read) never do, and an
 * AbortSignal costs microseconds to make.
 */
export function toolContext(turnSignal: AbortSignal | undefined): ToolContext {
  if (turnSignal !== undefined) return { signal: turnSignal };
  let signal: AbortSignal | undefined;
  return {
    get signal() {
      return (signal ??= unabortable());
    },
  };
}
