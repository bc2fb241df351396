import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { UsageError } from '../../engine/util/errors.js';
/**
 * The inputs of `--inputs file.yaml` (typed YAML/JSON values) and `--input k=v` (text, converted
 * to each input's declared type by the engine); `--input` wins.
 */
export async function readInputs(cwd, pairs, file) {
    const inputs = {};
    if (file !== undefined) {
        const path = resolve(cwd, file);
        let text;
        try {
            text = await readFile(path, 'utf8');
        }
        catch {
            throw new UsageError('CLI_PATH_NOT_FOUND', `--inputs: no such file ${path}`);
        }
        let value;
        try {
            value = parse(text);
        }
        catch (error) {
            throw new UsageError('CLI_BAD_INPUTS', `--inputs: ${path} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value)))
            throw new UsageError('CLI_BAD_INPUTS', `--inputs: ${path} must hold a map of input names to values`);
        Object.assign(inputs, value ?? {});
    }
    const textInputs = new Set();
    for (const pair of pairs) {
        const at = pair.indexOf('=');
        if (at <= 0)
            throw new UsageError('CLI_BAD_INPUT', `--input ${pair}: expected key=value`, { hint: 'e.g. --input target="npm test"' });
        const key = pair.slice(0, at);
        inputs[key] = pair.slice(at + 1);
        textInputs.add(key);
    }
    return { inputs, textInputs };
}
