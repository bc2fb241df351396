/**
 * What opening an ACP session takes beside the session itself: the `initialize` exchange with its
 * protocol check, a refused login told as TRANSPORT_UNAUTHENTICATED, and the first prompt (ACP
 * has no system-prompt channel).
 */
import { NeoError } from '../../util/errors.js';
import { packageVersion } from '../../util/package-root.js';
import type { StartSessionOptions } from '../types.js';
import { JsonRpcError, type JsonRpcPeer } from '../shared/index.js';

type Json = Record<string, unknown>;

/** Agents answer this when a session needs a login first. */
const AUTH_REQUIRED = -32000;

/** `initialize`: neo's client capabilities out, the agent's back (protocol version 1 or an error). */
export async function initializeAgent(rpc: JsonRpcPeer, backendId: string): Promise<Json> {
  const init = (await rpc.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: 'neo', title: 'neo', version: packageVersion() },
  })) as Json;
  if (init.protocolVersion !== 1)
    throw new NeoError(
      'TRANSPORT_PROTOCOL',
      `${backendId} speaks ACP protocol version ${String(init.protocolVersion)}; neo speaks 1`,
    );
  return (init.agentCapabilities ?? {}) as Json;
}

/** A session request's failure, with the agent's "log in first" told as such (and the login hint). */
export function openingFailure(error: unknown, backendId: string, options: StartSessionOptions): unknown {
  if (!(error instanceof JsonRpcError) || error.code !== AUTH_REQUIRED) return error;
  const hint = options.descriptor.command?.authHint;
  return new NeoError(
    'TRANSPORT_UNAUTHENTICATED',
    `${backendId} needs a login: ${error.message}`,
    hint === undefined ? {} : { hint },
  );
}

/** Appended instructions open the first prompt, fenced off from the brief. */
export function firstPrompt(options: StartSessionOptions): string {
  const preamble = [options.appendSystemPrompt, options.provision?.instructions].filter(
    (p): p is string => p !== undefined && p.trim() !== '',
  );
  return preamble.length === 0 ? options.brief : `${preamble.join('\n\n')}\n\n---\n\n${options.brief}`;
}
