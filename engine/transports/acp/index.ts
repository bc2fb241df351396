/** The generic Agent Client Protocol adapter: Gemini, Copilot, Droid, OpenCode and any ACP agent. */
import type { Definition } from '../../definitions/index.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import { AcpSession } from './session.js';
import { probeCli, readTuning } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: acp`. */
export function createAcpTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return {
    id: backend.id,
    probeAvailability(): Promise<Availability> {
      return probeCli(backend.id, backend.data, env ?? process.env);
    },
    start(options: StartSessionOptions): Promise<AgentSession> {
      return AcpSession.open(backend.id, options, readTuning(options));
    },
  };
}

export default createAcpTransport;
