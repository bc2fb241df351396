import { AcpSession } from './session.js';
import { probeCli, readTuning } from '../shared/index.js';
/** Builds the transport for a descriptor with `protocol: acp`. */
export function createAcpTransport(backend, env) {
    return {
        id: backend.id,
        probeAvailability() {
            return probeCli(backend.id, backend.data, env ?? process.env);
        },
        start(options) {
            return AcpSession.open(backend.id, options, readTuning(options));
        },
    };
}
export default createAcpTransport;
