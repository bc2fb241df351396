/**
 * What a CLI says about a failed model request, read into one of neo's codes. Every adapter
 * pulls the HTTP status and the CLI's own words out of its protocol; this one rule names the
 * failure, so a rejected key is TRANSPORT_UNAUTHENTICATED whichever CLI reported it.
 */
export const PROVIDER_CODES = {
  /** The provider refused the credentials (401) or the key may not use the model (403). */
  unauthenticated: 'TRANSPORT_UNAUTHENTICATED',
  /** Nothing answered at the provider's address (refused, unresolvable, unreachable). */
  unreachable: 'TRANSPORT_PROVIDER_UNREACHABLE',
  /** 429 / overloaded, after the CLI's own retries. */
  rateLimited: 'TRANSPORT_RATE_LIMITED',
  /** Any other failure of the provider (5xx after the CLI's retries, a broken stream). */
  failed: 'TRANSPORT_PROVIDER_ERROR',
} as const;

export type ProviderCode = (typeof PROVIDER_CODES)[keyof typeof PROVIDER_CODES];

const UNAUTHENTICATED =
  /\b(401|403)\b|unauthori[sz]ed|authentication[ _](failed|error)|failed to authenticate|invalid[ _-]?(x-)?api[ _-]?key|incorrect api key|api key (is )?(invalid|not valid)|forbidden|permission_error/i;
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|connection refused|could not connect|couldn't connect|unable to connect|cannot connect|failed to connect|connection failed|connection error|error sending request|fetch failed|waiting for network/i;
const RATE_LIMITED = /\b(429|529)\b|rate.?limit|overloaded|too many requests|usage.?limit/i;
const SERVER = /\b5\d\d\b|internal server error|server error|service unavailable|bad gateway/i;

/**
 * The code for a provider failure, from its HTTP status when the CLI gives one, else from its
 * words; undefined when neither says it was the provider (the caller keeps its own code).
 */
export function providerCode(status: number | undefined, text: string): ProviderCode | undefined {
  if (status === 401 || status === 403) return PROVIDER_CODES.unauthenticated;
  if (status === 429 || status === 529) return PROVIDER_CODES.rateLimited;
  if (status !== undefined && status >= 500) return PROVIDER_CODES.failed;
  if (UNAUTHENTICATED.test(text)) return PROVIDER_CODES.unauthenticated;
  if (UNREACHABLE.test(text)) return PROVIDER_CODES.unreachable;
  if (RATE_LIMITED.test(text)) return PROVIDER_CODES.rateLimited;
  if (SERVER.test(text)) return PROVIDER_CODES.failed;
  return undefined;
}

/** Whether trying the same request again could help (a bad key or a forbidden model never does). */
export function isPermanentProviderCode(code: string | undefined): boolean {
  return code === PROVIDER_CODES.unauthenticated;
}

const WHAT: Record<ProviderCode, string> = {
  TRANSPORT_UNAUTHENTICATED: 'it is not authenticated with its model provider',
  TRANSPORT_PROVIDER_UNREACHABLE: 'it could not reach its model provider',
  TRANSPORT_RATE_LIMITED: 'its model provider is rate limiting it',
  TRANSPORT_PROVIDER_ERROR: 'its model provider failed',
};

/**
 * One sentence naming the failure and quoting the CLI: `claude-code: it is not authenticated
 * with its model provider (HTTP 401): Failed to authenticate …`; the auth hint follows.
 */
export function providerFailureMessage(
  backendId: string,
  code: ProviderCode,
  detail: string,
  options: { status?: number; authHint?: string } = {},
): string {
  const status = options.status === undefined ? '' : ` (HTTP ${options.status})`;
  const said = detail.trim() === '' ? '' : `: ${oneLine(detail)}`;
  const hint =
    code === PROVIDER_CODES.unauthenticated
      ? ` — check the API key or login the CLI uses${options.authHint === undefined ? '' : ` (${options.authHint})`}`
      : '';
  return `${backendId}: ${WHAT[code]}${status}${said}${hint}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length > 400 ? `${flat.slice(0, 400)}…` : flat;
}
