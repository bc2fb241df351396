import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadDefinitions, type Definition } from '../../engine/definitions/index.js';
import { packageRoot } from '../../engine/util/package-root.js';
import { renderBackendsDoc } from '../backend-matrix.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

/** The packaged descriptors only: the doc describes what neo ships, not one user's setup. */
async function packagedBackends(): Promise<Definition<'backend'>[]> {
  const root = packageRoot();
  const { set } = await loadDefinitions({
    packaged: root,
    home: join(root, 'definitions', '.no-user-layer'),
    noProject: true,
  });
  return set.list('backend').filter((b) => b.layer === 'packaged');
}

export async function packagedBackendsDoc(): Promise<string> {
  return renderBackendsDoc(await packagedBackends());
}

/** `neo backends doc [--write | --check]`: print, write or verify docs/backends.md. */
export async function run(io: CommandIO, options: { write?: boolean; check?: boolean }): Promise<number> {
  const doc = await packagedBackendsDoc();
  const file = join(packageRoot(), 'docs', 'backends.md');
  if (options.write) {
    await writeFile(file, doc);
    writeLine(io.stdout, `wrote ${file}`);
    return EXIT.ok;
  }
  if (options.check) {
    const current = await readFile(file, 'utf8').catch(() => '');
    if (current === doc) return EXIT.ok;
    writeLine(io.stderr, `${file} is stale: run \`neo backends doc --write\``);
    return EXIT.failed;
  }
  io.stdout.write(doc);
  return EXIT.ok;
}
