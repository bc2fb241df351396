import { randomBytes } from 'node:crypto';
const SESSION_ID = /^cs_[A-Za-z0-9_-]{43}$/;
/**
 * A fresh, unguessable session id: `cs_` + 256 random bits in base64url (43 characters).
 * Minted before the transport starts, so every event the agent emits already has a home.
 */
export function mintSessionId() {
    return `cs_${randomBytes(32).toString('base64url')}`;
}
/** Whether `value` has the shape of a minted session id (it may still be unknown). */
export function isSessionId(value) {
    return typeof value === 'string' && SESSION_ID.test(value);
}
