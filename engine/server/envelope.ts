/**
 * The control plane's one response shape (seed 004 §5): `{ok: true, data}` or
 * `{ok: false, error: {code, message, hint?}}`, and the one table that maps an error to its
 * HTTP status. Routes throw typed errors; only this file decides statuses.
 */
import { NeoError, UsageError } from '../util/errors.js';
import { defined } from '../util/defined.js';
import { AnswerTakenError, type Answer } from '../util/approval-answer.js';

export interface ApiError {
  code: string;
  message: string;
  hint?: string;
  /** For an approval or question already answered: the answer that won. */
  answered?: Answer;
}

/** An error that carries its own HTTP status (auth, host, size, a missing dispatcher). */
export class HttpError extends NeoError {
  readonly status: number;

  constructor(status: number, code: string, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(code, message, options);
    this.status = status;
  }
}

/** Error codes whose meaning is "there is no such thing". */
const NOT_FOUND = new Set([
  'SESSION_NOT_FOUND',
  'SESSION_ADOPT_NOT_FOUND',
  'FLOW_RUN_NOT_FOUND',
  'FLOW_UNKNOWN_STEP',
  'PERSONA_NO_QUESTION',
]);

/** Error codes whose meaning is "not in this state": the request was fine, the moment is not. */
const CONFLICT = new Set([
  'STORE_TAMPERED',
  'STORE_UNAUTHENTICATED',
  'STORE_CORRUPT',
  'SESSION_NOT_LIVE',
  'SESSION_ALREADY_LIVE',
  'SESSION_NOT_ACTIVE',
  'SESSION_UNKNOWN_CLARIFICATION',
  'FLOW_RUN_FINISHED',
  'FLOW_RUN_LIVE',
  'FLOW_APPROVAL_ANSWERED',
  'PERSONA_QUESTION_ANSWERED',
  'PERSONA_QUESTION_CLOSED',
  'FLOW_NOT_AN_APPROVAL',
]);

/** The HTTP status of an error a route threw. */
export function statusOf(error: unknown): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof NeoError) {
    if (NOT_FOUND.has(error.code)) return 404;
    if (CONFLICT.has(error.code)) return 409;
    if (error instanceof UsageError) return 400;
  }
  return 500;
}

/** The envelope of an error; an untyped one says only that it was internal, with its message. */
export function errorBody(error: unknown): { ok: false; error: ApiError } {
  if (error instanceof NeoError) {
    return {
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        ...defined({ hint: error.hint }),
        ...(error instanceof AnswerTakenError ? { answered: error.answer } : {}),
      },
    };
  }
  return {
    ok: false,
    error: { code: 'SERVER_INTERNAL', message: error instanceof Error ? error.message : String(error) },
  };
}
