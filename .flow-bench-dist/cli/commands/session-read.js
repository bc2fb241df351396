import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine } from '../io.js';
import { resolveSessionId, sessionOp } from './session-client.js';
import { renderReadTurn } from './session-format.js';
export async function run(io, id, options) {
    const sessionId = await resolveSessionId(io, id);
    const result = await sessionOp(io, { op: 'read-turn', sessionId, ...(options.diff ? { includeDiff: true } : {}) });
    if (options.json)
        writeJson(io.stdout, result);
    else
        for (const line of renderReadTurn(result, painter(useColor(io.stdout, io.env))))
            writeLine(io.stdout, line);
    return EXIT.ok;
}
