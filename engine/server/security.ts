/**
 * The gate every request passes. The Host header must name this server (a DNS-rebinding page
 * that resolves its own name to 127.0.0.1 sends its own Host and is refused). /api and /metrics
 * need the bearer token, compared in constant time; a browser Origin other than this server's is
 * refused, and no CORS header is ever sent, so no other site can read or drive the API. Every
 * response says: no framing, no sniffing, no referrer, and only this origin's scripts.
 */
import type { MiddlewareHandler } from 'hono';
import { errorBody, HttpError } from './envelope.js';
import { tokenMatches } from './token.js';

/** Security headers on every response, the static UI's included. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cross-Origin-Opener-Policy', 'same-origin');
  c.header('Cross-Origin-Resource-Policy', 'same-origin');
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
};

/** Refuses a request whose Host is not this server (DNS rebinding). */
export function hostCheck(hosts: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!hosts.has(host)) {
      const error = new HttpError(
        403,
        'SERVER_BAD_HOST',
        `requests must be addressed to this server, not \`${host.slice(0, 100)}\``,
        {
          hint: `open the URL \`neo serve\` printed (${[...hosts][0]})`,
        },
      );
      return c.json(errorBody(error), 403);
    }
    return next();
  };
}

/**
 * The API gate: an Origin from another site is refused (the browser sends one on every
 * cross-origin request), then the bearer token must match.
 */
export function apiGate(token: string, hosts: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && !hosts.has(originHost(origin))) {
      return c.json(errorBody(new HttpError(403, 'SERVER_BAD_ORIGIN', 'cross-origin requests are refused')), 403);
    }
    if (origin === 'null')
      return c.json(errorBody(new HttpError(403, 'SERVER_BAD_ORIGIN', 'cross-origin requests are refused')), 403);
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!tokenMatches(match?.[1], token)) {
      c.header('WWW-Authenticate', 'Bearer realm="neo"');
      const error = new HttpError(
        401,
        match === null ? 'SERVER_NO_TOKEN' : 'SERVER_BAD_TOKEN',
        match === null ? 'this API needs the bearer token' : 'the bearer token is wrong',
        { hint: 'open the URL `neo serve` printed, or send `Authorization: Bearer <NEO_HOME/server.token>`' },
      );
      return c.json(errorBody(error), 401);
    }
    return next();
  };
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}
