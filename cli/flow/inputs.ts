import { resolve } from 'node:path';
import { readDefinitionText, YamlSource } from '../../engine/definitions/index.js';
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
  if (file !== undefined) Object.assign(inputs, readInputsFile(resolve(cwd, file)));
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

/**
 * The map of an `--inputs` file, read with the bounds of a definition: a regular file (never a
 * FIFO) under 1 MB, UTF-8 text, YAML without alias bombs or runaway nesting.
 */
function readInputsFile(path: string): Record<string, unknown> {
  const read = readDefinitionText(path);
  if ('diagnostic' in read) {
    const missing = read.diagnostic.code === 'DEF_READ_FAILED';
    throw new UsageError(
      missing ? 'CLI_PATH_NOT_FOUND' : 'CLI_BAD_INPUTS',
      missing ? `--inputs: no such file ${path}` : `--inputs: ${path}: ${read.diagnostic.message}`,
    );
  }
  const source = new YamlSource(path, read.text);
  const problem = source.syntaxDiagnostics().find((d) => d.severity === 'error');
  const converted = problem === undefined ? source.toValue() : { diagnostic: problem };
  if ('diagnostic' in converted) {
    const { message, span } = converted.diagnostic;
    const at = span === undefined ? '' : `:${span.start.line}:${span.start.column}`;
    throw new UsageError('CLI_BAD_INPUTS', `--inputs: ${path}${at} is not valid YAML: ${message}`);
  }
  const value = converted.value;
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value)))
    throw new UsageError('CLI_BAD_INPUTS', `--inputs: ${path} must hold a map of input names to values`);
  return (value ?? {}) as Record<string, unknown>;
}
