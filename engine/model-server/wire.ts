import type { ErrorPlan, PlannedToolCall, ReplyPlan } from './plan.js';
import type { RequestView } from './request-view.js';
import { defined } from '../util/defined.js';

/** One streamed event. `content` marks a content fragment (a stall with `true` stops after the first). */
export interface WireEvent {
  event?: string;
  data: string;
  content?: boolean;
}

/** How one API puts replies and errors on the wire. Pure: plans in, bytes-to-be out. */
export interface WireFormat {
  /** The events of a streamed reply, in order. */
  stream(plan: ReplyPlan, view: RequestView): WireEvent[];
  /** The body of a non-streamed reply. */
  json(plan: ReplyPlan, view: RequestView): unknown;
  /** The body of an error reply. */
  error(plan: ErrorPlan): unknown;
}

/** `event: name\ndata: json\n\n` (or data only): one Server-Sent Event. */
export function serializeEvent(event: WireEvent): string {
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}

/** An event whose data is JSON. */
export function jsonEvent(event: string | undefined, data: unknown, content = false): WireEvent {
  return {
    ...defined({ event }),
    data: JSON.stringify(data),
    ...(content ? { content: true } : {}),
  };
}

/** The call id of tool call `index`: the script's, or one in the API's style. */
export function callId(plan: ReplyPlan, call: PlannedToolCall, index: number, prefix: string): string {
  return call.id ?? `${prefix}${plan.base}_${index}`;
}

/** Parses function arguments for a non-streamed body; raw text that is not JSON stays a string. */
export function parsedArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** The API's error type for an HTTP status, OpenAI style. */
export function openAiErrorType(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}
