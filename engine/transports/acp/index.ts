/** The generic Agent Client Protocol adapter: Gemini, Copilot, Droid, OpenCode and any ACP agent. */
import type { Definition } from '../../definitions/index.js';
import type { Transport } from '../types.js';
import { AcpSession } from './session.js';
import { cliTransport } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: acp`. */
export function createAcpTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return cliTransport(backend, env, (id, options, tuning) => AcpSession.open(id, options, tuning));
}

export default createAcpTransport;
