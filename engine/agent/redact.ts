/** The secrets neo's own agent expanded, scrubbed by the one redactor (util/redact.ts). */
import { redactor, type Redact } from '../util/redact.js';
import type { Secret } from './settings/secret.js';

export function secretRedactor(secrets: readonly Secret[]): Redact {
  return redactor(secrets.map((s) => ({ name: s.name, value: s.reveal() })));
}
