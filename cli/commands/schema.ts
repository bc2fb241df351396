import { readdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { schemaPath } from '../../engine/definitions/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { didYouMean } from '../../engine/util/did-you-mean.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

/** Every schema neo ships, by kind (`flow`, `persona`, `script`, `model-script`, …). */
async function schemaKinds(): Promise<Record<string, string>> {
  const dir = dirname(schemaPath('common.schema.json'));
  const files = (await readdir(dir)).filter((f) => f.endsWith('.schema.json')).sort();
  return Object.fromEntries(files.map((f) => [f.slice(0, -'.schema.json'.length), schemaPath(f)]));
}

export async function run(
  io: CommandIO,
  kind: string | undefined,
  options: { path?: boolean; json?: boolean },
): Promise<number> {
  const kinds = await schemaKinds();
  if (kind === undefined) {
    if (options.json) writeJson(io.stdout, kinds);
    else for (const [k, path] of Object.entries(kinds)) writeLine(io.stdout, `${k.padEnd(14)} ${path}`);
    return EXIT.ok;
  }
  const path = kinds[kind];
  if (path === undefined) {
    const suggestion = didYouMean(kind, Object.keys(kinds));
    throw new UsageError('CLI_UNKNOWN_KIND', `unknown schema kind \`${kind}\``, {
      hint: suggestion ? `did you mean \`${suggestion}\`?` : `kinds: ${Object.keys(kinds).join(', ')}`,
    });
  }
  if (options.path) writeLine(io.stdout, path);
  else io.stdout.write(await readFile(path, 'utf8'));
  return EXIT.ok;
}
