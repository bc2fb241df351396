import { CodexSession } from './session.js';
import { probeCli, readTuning } from '../shared/index.js';
/** Builds the transport for a descriptor with `protocol: codex`. */
export function createCodexTransport(backend, env) {
    return {
        id: backend.id,
        probeAvailability() {
            return probeCli(backend.id, backend.data, env ?? process.env);
        },
        start(options) {
            return CodexSession.open(backend.id, options, readTuning(options));
        },
    };
}
export default createCodexTransport;
