/** The Codex adapter: `codex app-server` JSON-RPC. */
import type { Definition } from '../../definitions/index.js';
import type { Transport } from '../types.js';
import { CodexSession } from './session.js';
import { cliTransport } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: codex`. */
export function createCodexTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return cliTransport(backend, env, (id, options, tuning) => CodexSession.open(id, options, tuning));
}

export default createCodexTransport;
