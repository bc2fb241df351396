/** The Claude Code adapter: `claude -p` with bidirectional stream-json and the control protocol. */
import type { Definition } from '../../definitions/index.js';
import type { Transport } from '../types.js';
import { ClaudeCodeSession } from './session.js';

export { PROTOCOL_ARGS } from './argv.js';
import { cliTransport } from '../shared/index.js';

/** Builds the transport for a descriptor with `protocol: claude-code`. */
export function createClaudeCodeTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  env?: NodeJS.ProcessEnv,
): Transport {
  return cliTransport(backend, env, (id, options, tuning) => ClaudeCodeSession.open(id, options, tuning));
}

export default createClaudeCodeTransport;
