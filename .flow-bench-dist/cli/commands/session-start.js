import { resolve } from 'node:path';
import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine } from '../io.js';
import { sessionOp } from './session-client.js';
export async function run(io, options) {
    // The op parser validates every field (postures, effort, …) with the same loud errors.
    const input = { op: 'start', brief: options.brief, cwd: resolve(io.cwd, options.cwd ?? '.') };
    if (options.backend !== undefined)
        input.backend = options.backend;
    if (options.maxPosture !== undefined)
        input.maxPosture = options.maxPosture;
    if (options.posture !== undefined)
        input.initialPosture = options.posture;
    if (options.maxRounds !== undefined)
        input.maxRounds = wholeNumber('--max-rounds', options.maxRounds);
    if (options.model !== undefined)
        input.agentModel = options.model;
    if (options.effort !== undefined)
        input.effort = options.effort;
    if (options.tag !== undefined)
        input.taskTags = options.tag;
    if (options.allowedTools !== undefined)
        input.allowedTools = options.allowedTools.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
    if (options.script !== undefined)
        input.backendOptions = { script: resolve(io.cwd, options.script) };
    const result = await sessionOp(io, input);
    if (options.json) {
        writeJson(io.stdout, result);
        return EXIT.ok;
    }
    const p = painter(useColor(io.stdout, io.env));
    writeLine(io.stdout, result.sessionId);
    writeLine(io.stderr, p.dim(`started on ${result.backend} · posture ${result.posture} (ceiling ${result.maxPosture}) · at most ${result.maxRounds} rounds`));
    writeLine(io.stderr, p.dim(`next: neo session read ${result.sessionId}`));
    return EXIT.ok;
}
function wholeNumber(flag, value) {
    if (!/^[0-9]+$/.test(value))
        throw new UsageError('CLI_BAD_OPTION', `${flag} expects a whole number, got ${JSON.stringify(value)}`);
    return Number(value);
}
