import { isRecord } from '../util/json-shape.js';

/** The wire format a request spoke. */
export type ApiKind = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** A tool the request offers the model. `custom` is a freeform tool whose input is a string. */
export interface OfferedTool {
  name: string;
  kind: 'function' | 'custom';
}

/** One tool result in the newest input of a conversation. */
export interface ToolResultView {
  text: string;
  isError: boolean;
  /** The tool the result answers, when the API lets us find out. */
  tool?: string;
  callId?: string;
}

/**
 * What the scripted server needs to know about one model request, whatever its wire format:
 * the inspectors (one per API) reduce a request body to this.
 */
export interface RequestView {
  api: ApiKind;
  model: string;
  stream: boolean;
  tools: OfferedTool[];
  /** The text of the newest user-written message (tool-result carriers are skipped). */
  lastUser?: string;
  /** Tool results that came after the last assistant message (empty when the user spoke last). */
  toolResults: ToolResultView[];
  /** System prompt, instructions and message texts, for finding the announced working directory. */
  texts: string[];
  /** A JSON schema the request asks the reply to follow, if any. */
  jsonSchema?: unknown;
  /** The request asked for JSON output without a schema. */
  jsonObject?: boolean;
  /** Chat Completions: `stream_options.include_usage`. */
  includeUsage?: boolean;
}

/** Narrows to a plain object (the one test, util/json-shape.ts; the model server's readers import it from here). */
export { isRecord };

/** A list, or empty for anything else. */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The text inside a content value that may be a string, a list of typed parts (`text`,
 * `input_text`, `output_text`, …) or a nested `content`.
 */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map(textOf)
      .filter((t) => t !== '')
      .join('\n');
  if (isRecord(content)) {
    if (typeof content.text === 'string') return content.text;
    if (content.content !== undefined) return textOf(content.content);
  }
  return '';
}
