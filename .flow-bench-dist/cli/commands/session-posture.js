import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine } from '../io.js';
import { resolveSessionId, sessionOp } from './session-client.js';
export async function run(io, id, posture, options) {
    const sessionId = await resolveSessionId(io, id);
    const result = await sessionOp(io, { op: 'set-posture', sessionId, posture });
    if (options.json)
        writeJson(io.stdout, result);
    else
        writeLine(io.stdout, `posture ${result.posture}`);
    return EXIT.ok;
}
