import { FailureError, UsageError } from '../util/errors.js';

/**
 * A request the caller must change: bad input, an unknown session, a ceiling or scope rule.
 * Counted as `outcome="rejected"`; the CLI exits 2.
 */
export class SessionRejection extends UsageError {}

/** The request was fine but the work failed (a transport that would not start). Exit 1. */
export class SessionFailure extends FailureError {}

/** Input that does not match the op contract; names the field. */
export function badInput(field: string, message: string, hint?: string): SessionRejection {
  return new SessionRejection('SESSION_BAD_INPUT', `${field}: ${message}`, hint === undefined ? {} : { hint });
}

/** An id that is neither live nor a session this caller ever owned. */
export function sessionNotFound(sessionId: string): SessionRejection {
  return new SessionRejection('SESSION_NOT_FOUND', `no code session \`${sessionId}\` belongs to this caller`, {
    hint: 'check the id with `neo sessions list`; a session is reachable only by the scope that started it',
  });
}

/** An op that needs a running agent, sent to a session that ended, failed or hit its round cap. */
export function sessionNotActive(sessionId: string, state: string): SessionRejection {
  return new SessionRejection(
    'SESSION_NOT_ACTIVE',
    `code session \`${sessionId}\` is ${state}; it takes no more guidance, answers or posture changes`,
    {
      hint: 'read its last result with read-turn, then stop it',
    },
  );
}
