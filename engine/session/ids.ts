import { randomBytes } from 'node:crypto';
import { isId } from '../util/ids.js';

/**
 * A fresh, unguessable session id: `cs_` + 256 random bits in base64url (43 characters).
 * Minted before the transport starts, so every event the agent emits already has a home.
 */
export function mintSessionId(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

/** Whether `value` has the shape of a minted session id (it may still be unknown). */
export function isSessionId(value: unknown): value is string {
  return isId('session', value);
}
