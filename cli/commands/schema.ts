import { readFile } from 'node:fs/promises';
import { SCHEMA_FILES, schemaPath } from '../../engine/definitions/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { didYouMean } from '../../engine/util/did-you-mean.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(io: CommandIO, kind: string | undefined, options: { path?: boolean; json?: boolean }): Promise<number> {
  const kinds = Object.keys(SCHEMA_FILES);
  if (kind === undefined) {
    if (options.json) writeJson(io.stdout, Object.fromEntries(kinds.map((k) => [k, schemaPath(SCHEMA_FILES[k as keyof typeof SCHEMA_FILES])])));
    else for (const k of kinds) writeLine(io.stdout, `${k.padEnd(12)} ${schemaPath(SCHEMA_FILES[k as keyof typeof SCHEMA_FILES])}`);
    return EXIT.ok;
  }
  if (!Object.hasOwn(SCHEMA_FILES, kind)) {
    const suggestion = didYouMean(kind, kinds);
    throw new UsageError('CLI_UNKNOWN_KIND', `unknown definition kind \`${kind}\``, { hint: suggestion ? `did you mean \`${suggestion}\`?` : `kinds: ${kinds.join(', ')}` });
  }
  const path = schemaPath(SCHEMA_FILES[kind as keyof typeof SCHEMA_FILES]);
  if (options.path) writeLine(io.stdout, path);
  else io.stdout.write(await readFile(path, 'utf8'));
  return EXIT.ok;
}
