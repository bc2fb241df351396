/** The Claude Code adapter: `claude -p` with bidirectional stream-json and the control protocol. */
import type { Definition } from '../../definitions/index.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import { ClaudeCodeSession } from './session.js';

export { PROTOCOL_ARGS } from './argv.js';
import { probeCli, readTuning } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: claude-code`. */
export function createClaudeCodeTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return {
    id: backend.id,
    probeAvailability(): Promise<Availability> {
      return probeCli(backend.id, backend.data, env ?? process.env);
    },
    start(options: StartSessionOptions): Promise<AgentSession> {
      return ClaudeCodeSession.open(backend.id, options, readTuning(options));
    },
  };
}

export default createClaudeCodeTransport;
