import { PROVIDER_CODES, providerCode, type ProviderCode } from '../shared/index.js';
import { stripEscapes } from '../../util/terminal-text.js';

type Json = Record<string, unknown>;

/** What a codex TurnError says: its provider code (if it was the provider), HTTP status and words. */
export interface CodexFailure {
  code: ProviderCode | undefined;
  status: number | undefined;
  /** Codex's message, with its additional details. */
  detail: string;
}

/** codexErrorInfo words that name a provider failure without a status. */
const BY_WORD: Record<string, ProviderCode> = {
  unauthorized: PROVIDER_CODES.unauthenticated,
  usageLimitExceeded: PROVIDER_CODES.rateLimited,
  rateLimitExceeded: PROVIDER_CODES.rateLimited,
  serverOverloaded: PROVIDER_CODES.rateLimited,
  internalServerError: PROVIDER_CODES.failed,
};

/**
 * Reads a codex TurnError (`{message, codexErrorInfo, additionalDetails}`). codexErrorInfo is a
 * word (`internalServerError`, `unauthorized` …) or an object naming the failure and carrying
 * `httpStatusCode` (null when nothing answered: then the words say whether it could connect).
 */
export function codexFailure(error: Json): CodexFailure {
  const message = typeof error.message === 'string' ? error.message : 'codex reported an error';
  const details = typeof error.additionalDetails === 'string' ? error.additionalDetails : '';
  const info = error.codexErrorInfo;
  let word = typeof info === 'string' ? info : '';
  let status: number | undefined;
  if (typeof info === 'object' && info !== null) {
    for (const [key, value] of Object.entries(info as Json)) {
      word = key;
      const code = (value as Json | null)?.httpStatusCode;
      if (typeof code === 'number') status = code;
    }
  }
  const code =
    status !== undefined
      ? providerCode(status, '')
      : (BY_WORD[word] ?? providerCode(undefined, `${message} ${details}`));
  return { code, status, detail: details === '' ? message : `${message} (${details})` };
}

/** Codex's log line for a tool call it failed itself, before running it or asking about it. */
const ROUTER_ERROR = /\bERROR codex_core::tools::router: error=(.+)$/;

/**
 * A tool call codex refused on its own (a patch that does not verify: `apply_patch verification
 * failed: Failed to read file to update …`), read from its stderr: codex tells only the model
 * and logs it there, with no item on the app-server wire.
 */
export function refusedToolCall(line: string): { name: string; why: string } | undefined {
  const match = ROUTER_ERROR.exec(stripEscapes(line));
  if (match === null) return undefined;
  const why = match[1]!.trim();
  return { name: /^apply_patch\b/.test(why) ? 'apply_patch' : 'tool', why };
}
