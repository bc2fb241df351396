/** The Codex adapter: `codex app-server` JSON-RPC. */
import type { Definition } from '../../definitions/index.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import { CodexSession } from './session.js';
import { probeCli, readTuning } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: codex`. */
export function createCodexTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return {
    id: backend.id,
    probeAvailability(): Promise<Availability> {
      return probeCli(backend.id, backend.data, env ?? process.env);
    },
    start(options: StartSessionOptions): Promise<AgentSession> {
      return CodexSession.open(backend.id, options, readTuning(options));
    },
  };
}

export default createCodexTransport;
