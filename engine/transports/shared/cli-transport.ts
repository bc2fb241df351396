import type { Definition } from '../../definitions/index.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import { probeCli } from './probe.js';
import { readTuning, type Tuning } from './tuning.js';

/** How an adapter opens one session of its CLI (its session class's `open`). */
export type OpenCliSession = (backendId: string, options: StartSessionOptions, tuning: Tuning) => Promise<AgentSession>;

/**
 * The transport of a backend whose agent is a CLI: availability is its binary's probe, and each
 * start opens a session with the tuning the start asks for. Only `open` differs by protocol.
 */
export function cliTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env: NodeJS.ProcessEnv | undefined,
  open: OpenCliSession,
): Transport {
  return {
    id: backend.id,
    probeAvailability(): Promise<Availability> {
      return probeCli(backend.id, backend.data, env ?? process.env);
    },
    start(options: StartSessionOptions): Promise<AgentSession> {
      return open(backend.id, options, readTuning(options));
    },
  };
}
