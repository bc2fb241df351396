/**
 * What `neo trust` pins, and the one rule that decides whether a project file is trusted: its
 * repository is trusted, and its privileged content (privileged.ts) is what was pinned when the
 * owner ran `neo trust`, or it has none. So a backend program, a driver persona or a provider's
 * URL written into `.neo/` after `neo trust` (an agent's edit, a pull, a branch switch) is
 * dropped as for an untrusted project until the owner trusts again; a prose edit changes nothing
 * pinned and needs no re-trust.
 */
import { relative, sep } from 'node:path';
import { contentHash } from '../util/content-hash.js';
import type { DefinitionKind } from './kinds.js';
import { NOT_TRUSTED, namedPolicyParts, privilegedParts, type DropReason } from './privileged.js';

/** Each project file's privileged digest, keyed by its path in the repository (`/`-separated). */
export type Pins = Readonly<Record<string, string>>;

/** How far a project layer is trusted: not at all, or with what `neo trust` pinned. */
export type ProjectTrust =
  | { readonly trusted: false }
  /** `pins` undefined: an entry `neo trust` wrote before it pinned anything. */
  | { readonly trusted: true; readonly repo: string; readonly pins: Pins | undefined };

export const CHANGED_SINCE_TRUST: DropReason = {
  because: 'changed since `neo trust`: run `neo trust` again to allow it',
  hint: '`neo trust` allowed what this file said then; read the change, then run `neo trust` in the repository again',
};

export const TRUSTED_BEFORE_PINS: DropReason = {
  because: 'this repository was trusted before `neo trust` pinned what it allows: run `neo trust` again to allow it',
  hint: 'neo cannot tell whether this file changed since you trusted the repository; read it, then run `neo trust` again',
};

/**
 * Whether a warning is about a file of a trusted project whose privileged content is not what
 * `neo trust` pinned: news to an owner who believes the project trusted, so every command that
 * loads definitions prints it (an untrusted project's drops are printed by `neo validate` and
 * before a run).
 */
export function isUnpinnedWarning(message: string): boolean {
  return message.endsWith(CHANGED_SINCE_TRUST.because) || message.endsWith(TRUSTED_BEFORE_PINS.because);
}

/** The key of a project file in a repository's pins. */
export function pinKey(repo: string, file: string): string {
  return relative(repo, file).split(sep).join('/');
}

/**
 * A digest of what of a definition only a trusted project may set: the privileged fields'
 * values (the whole definition for a backend or capability file) and the policies it names, as
 * canonical JSON, sha256. Undefined when it has none, so such a file needs no pin and costs no
 * hash.
 */
export function privilegedDigest(kind: DefinitionKind, data: Record<string, unknown>): string | undefined {
  const parts = privilegedParts(kind, data);
  if (parts === 'whole') return contentHash(kind, 'whole', canonicalJson(data));
  const pinned = [...parts.map((part) => part.segments), ...namedPolicyParts(kind, data)];
  if (pinned.length === 0) return undefined;
  const values = pinned.map((segments) => [segments, valueAt(data, segments)]);
  return contentHash(kind, canonicalJson(values));
}

/** The pin key of a project's `.env` (its variables are privileged: a provider's `${NAME}` takes them). */
export const DOTENV_PIN_KEY = '.neo/.env';

/** The digest `neo trust` pins for a project's `.env`: its variables, canonical JSON; undefined when it defines none. */
export function dotenvDigest(vars: ReadonlyMap<string, string>): string | undefined {
  if (vars.size === 0) return undefined;
  return contentHash('dotenv', canonicalJson(Object.fromEntries(vars)));
}

/** Whether a trusted project's `.env` variables apply: {@link fileTrust}'s rule for a file that is no definition. */
export function dotenvTrust(
  trust: ProjectTrust,
  vars: ReadonlyMap<string, string>,
): { trusted: true } | { trusted: false; reason: DropReason } {
  return pinned(trust, DOTENV_PIN_KEY, dotenvDigest(vars));
}

/** Whether a project file's privileged parts apply, and why not when they do not. */
export function fileTrust(
  trust: ProjectTrust,
  file: string,
  kind: DefinitionKind,
  data: Record<string, unknown>,
): { trusted: true } | { trusted: false; reason: DropReason } {
  if (!trust.trusted) return { trusted: false, reason: NOT_TRUSTED };
  return pinned(trust, pinKey(trust.repo, file), privilegedDigest(kind, data));
}

/** The one rule: no privileged content needs no pin; any other must be what `neo trust` pinned under `key`. */
function pinned(
  trust: ProjectTrust,
  key: string,
  digest: string | undefined,
): { trusted: true } | { trusted: false; reason: DropReason } {
  if (!trust.trusted) return { trusted: false, reason: NOT_TRUSTED };
  if (digest === undefined) return { trusted: true };
  if (trust.pins === undefined) return { trusted: false, reason: TRUSTED_BEFORE_PINS };
  return trust.pins[key] === digest ? { trusted: true } : { trusted: false, reason: CHANGED_SINCE_TRUST };
}

function valueAt(data: unknown, segments: ReadonlyArray<string | number>): unknown {
  return segments.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], data);
}

/** JSON with every object's keys sorted, so the digest does not depend on key order in the file. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
