/**
 * The daemon's wire format: newline-delimited JSON over a unix socket. A request carries an op
 * input (the same `unknown` the op tool parses) and the caller's scope; errors travel as their
 * code, message, hint and class so the CLI maps them to the same exit codes as in process.
 */
import { FailureError, NeoError, UsageError } from '../../util/errors.js';

export type DaemonRequest =
  | {
      id: number;
      kind: 'execute';
      input: unknown;
      scope: string;
      cwd: string;
      /**
       * The client's environment, sent with a start: the session's agent runs with the caller's
       * keys, base URLs and PATH, not the ones of whichever command once started the daemon.
       */
      env?: Record<string, string>;
    }
  | { id: number; kind: 'ping' }
  | { id: number; kind: 'shutdown' };

export interface WireError {
  code: string;
  message: string;
  hint?: string;
  /** usage → exit 2, failure → exit 1, neo → exit 1, internal → exit 70. */
  class: 'usage' | 'failure' | 'neo' | 'internal';
}

export type DaemonResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError };

/** What ping answers. */
export interface DaemonStatus {
  pid: number;
  version: string;
  /** Which build of that version (see packageBuild): a rebuilt install is another daemon. */
  build?: string;
  /** `server` when `neo serve` hosts the protocol (never shut down by a client's version check). */
  hostedBy?: 'daemon' | 'server';
  liveSessions: string[];
  startedAt: string;
}

export function encodeError(error: unknown): WireError {
  if (error instanceof NeoError) {
    const wire: WireError = {
      code: error.code,
      message: error.message,
      class: error instanceof UsageError ? 'usage' : error instanceof FailureError ? 'failure' : 'neo',
    };
    if (error.hint !== undefined) wire.hint = error.hint;
    return wire;
  }
  return {
    code: 'SESSION_DAEMON_INTERNAL',
    message: error instanceof Error ? error.message : String(error),
    class: 'internal',
  };
}

/** Rebuilds an error of the class it had in the daemon. */
export function decodeError(wire: WireError): Error {
  const options = wire.hint === undefined ? {} : { hint: wire.hint };
  switch (wire.class) {
    case 'usage':
      return new UsageError(wire.code, wire.message, options);
    case 'failure':
      return new FailureError(wire.code, wire.message, options);
    case 'neo':
      return new NeoError(wire.code, wire.message, options);
    case 'internal':
      return new Error(`session daemon: ${wire.message}`);
  }
}

/** Splits a byte stream into lines (shared with every NDJSON socket of neo). */
export { lineReader } from '../../util/lines.js';
