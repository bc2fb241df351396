import { ClaudeCodeSession } from './session.js';
export { PROTOCOL_ARGS } from './argv.js';
import { probeCli, readTuning } from '../shared/index.js';
/** Builds the transport for a descriptor with `protocol: claude-code`. */
export function createClaudeCodeTransport(backend, env) {
    return {
        id: backend.id,
        probeAvailability() {
            return probeCli(backend.id, backend.data, env ?? process.env);
        },
        start(options) {
            return ClaudeCodeSession.open(backend.id, options, readTuning(options));
        },
    };
}
export default createClaudeCodeTransport;
