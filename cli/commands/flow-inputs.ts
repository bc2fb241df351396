import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../engine/util/errors.js';

/**
 * The inputs of `--inputs file.yaml` (typed YAML/JSON values) and `--input k=v` (text, converted
 * to each input's declared type by the engine); `--input` wins.
 */
export async function readInputs(
  cwd: string,
  pairs: readonly string[],
  file: string | undefined,
): Promise<{ inputs: Record<string, unknown>; textInputs: Set<string> }> {
  const inputs: Record<string, unknown> = {};
  if (file !== undefined) {
    const path = resolve(cwd, file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      throw new UsageError('CLI_PATH_NOT_FOUND', `--inputs: no such file ${path}`);
    }
    let value: unknown;
    try {
      // Loaded only for --inputs: the yaml package is a noticeable share of start-up.
      const { parse } = await import('yaml');
      value = parse(text);
    } catch (error) {
      throw new UsageError(
        'CLI_BAD_INPUTS',
        `--inputs: ${path} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value)))
      throw new UsageError('CLI_BAD_INPUTS', `--inputs: ${path} must hold a map of input names to values`);
    Object.assign(inputs, value ?? {});
  }
  const textInputs = new Set<string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError('CLI_BAD_INPUT', `--input ${pair}: expected key=value`, {
        hint: 'e.g. --input target="npm test"',
      });
    const key = pair.slice(0, at);
    inputs[key] = pair.slice(at + 1);
    textInputs.add(key);
  }
  return { inputs, textInputs };
}
