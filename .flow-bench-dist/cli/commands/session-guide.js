import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine } from '../io.js';
import { resolveSessionId, sessionOp } from './session-client.js';
export async function run(io, id, text, options) {
    const sessionId = await resolveSessionId(io, id);
    const input = { op: 'guide', sessionId, text };
    if (options.model !== undefined)
        input.agentModel = options.model;
    if (options.effort !== undefined)
        input.effort = options.effort;
    const result = await sessionOp(io, input);
    if (options.json)
        writeJson(io.stdout, result);
    else
        writeLine(io.stdout, 'guidance queued for the next turn');
    return EXIT.ok;
}
