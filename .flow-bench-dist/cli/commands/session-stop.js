import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine } from '../io.js';
import { resolveSessionId, sessionOp } from './session-client.js';
export async function run(io, id, options) {
    const sessionId = await resolveSessionId(io, id);
    const input = { op: 'stop', sessionId };
    if (options.outcome !== undefined)
        input.outcome = options.outcome;
    if (options.note !== undefined)
        input.note = options.note;
    const result = await sessionOp(io, input);
    if (options.json)
        writeJson(io.stdout, result);
    else
        writeLine(io.stdout, result.alreadyStopped ? `${sessionId} was already stopped` : `stopped ${sessionId}`);
    return EXIT.ok;
}
