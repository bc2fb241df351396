import { askPaths } from '../../posture/index.js';
import { PROVIDER_CODES, providerCode, type ProviderCode } from '../shared/provider-failure.js';
import type { AgentEvent, Usage } from '../types.js';
import { asRecord } from '../../util/json-shape.js';

type Json = Record<string, unknown>;

/** Events for one `assistant` line: each content block becomes text, reasoning or tool_use. */
export function assistantEvents(message: Json): AgentEvent[] {
  // The CLI reports API failures as a synthetic assistant message; the `result` line that
  // follows carries the failure, so the synthetic text is not agent output.
  if (message.is_api_error_message === true) return [];
  const subagent = message.parent_tool_use_id !== null && message.parent_tool_use_id !== undefined;
  const content = asObject(message.message)?.content;
  if (!Array.isArray(content)) return [];
  const events: AgentEvent[] = [];
  for (const block of content) {
    const b = asObject(block);
    if (b === undefined) continue;
    if (b.type === 'text' && typeof b.text === 'string' && !subagent) events.push({ type: 'text', text: b.text });
    else if (b.type === 'thinking' && typeof b.thinking === 'string' && !subagent)
      events.push({ type: 'reasoning', text: b.thinking });
    else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
      // Write/Edit/MultiEdit name `file_path`, NotebookEdit `notebook_path` (absolute).
      const paths = askPaths(b.input);
      events.push({
        type: 'tool_use',
        id: b.id,
        name: b.name,
        input: b.input ?? {},
        ...(paths.length === 0 ? {} : { paths }),
      });
    }
  }
  return events;
}

/** Events for one `user` line the CLI echoes: its tool_result blocks. */
export function toolResultEvents(message: Json): AgentEvent[] {
  const content = asObject(message.message)?.content;
  if (!Array.isArray(content)) return [];
  const events: AgentEvent[] = [];
  for (const block of content) {
    const b = asObject(block);
    if (b?.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
    events.push({
      type: 'tool_result',
      id: b.tool_use_id,
      output: resultText(b.content),
      isError: b.is_error === true,
    });
  }
  return events;
}

/**
 * Per-turn usage from a `result` line. Anthropic counts cache reads and writes apart from
 * input_tokens; neo's inputTokens is the whole prompt, cachedInputTokens the cache reads.
 */
export function resultUsage(result: Json): Usage | undefined {
  const usage = asObject(result.usage);
  if (usage === undefined) return undefined;
  const num = (key: string): number => (typeof usage[key] === 'number' ? usage[key] : 0);
  const cacheRead = num('cache_read_input_tokens');
  const out: Usage = {
    inputTokens: num('input_tokens') + cacheRead + num('cache_creation_input_tokens'),
    outputTokens: num('output_tokens'),
    cachedInputTokens: cacheRead,
  };
  const thinking = asObject(usage.output_tokens_details)?.thinking_tokens;
  if (typeof thinking === 'number') out.reasoningTokens = thinking;
  return out;
}

/** Why a result line failed, in one sentence. */
export function resultFailure(result: Json): string {
  return `claude turn failed: ${resultDetail(result)}`;
}

/** What a failed result says: its text or errors, and its terminal reason. */
export function resultDetail(result: Json): string {
  const text = typeof result.result === 'string' && result.result !== '' ? result.result : undefined;
  const errors = Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === 'string') : [];
  const detail = text ?? (errors.join('; ') || `result subtype ${String(result.subtype)}`);
  const reason = typeof result.terminal_reason === 'string' ? ` (${result.terminal_reason})` : '';
  return `${detail}${reason}`;
}

/**
 * The provider failure behind a failed result, if it was one: the status claude reports
 * (`api_error_status`), else its words. The synthetic assistant message's `error` (e.g.
 * `authentication_failed`) counts as words.
 */
export function resultProviderCode(result: Json, apiError: string | undefined): ProviderCode | undefined {
  const status = typeof result.api_error_status === 'number' ? result.api_error_status : undefined;
  const text = [typeof result.result === 'string' ? result.result : '', apiError ?? ''].join(' ');
  return providerCode(status, text);
}

/**
 * What an `api_retry` line says: the HTTP status and claude's error word (`authentication_failed`,
 * `rate_limit` …). No status (`error_status: null`, `error: "unknown"`) is what claude reports
 * when nothing answered at the provider's address.
 */
export function retryFailure(message: Json): {
  status: number | undefined;
  said: string;
  code: ProviderCode | undefined;
} {
  const status = typeof message.error_status === 'number' ? message.error_status : undefined;
  const said = typeof message.error === 'string' ? message.error : '';
  return { status, said, code: status === undefined ? PROVIDER_CODES.unreachable : providerCode(status, said) };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content);
  return content
    .map((part) => {
      const p = asObject(part);
      return p?.type === 'text' && typeof p.text === 'string' ? p.text : JSON.stringify(part);
    })
    .join('\n');
}

export function asObject(value: unknown): Json | undefined {
  return asRecord(value);
}
