import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadDefinitions, type Definition } from '../../engine/definitions/index.js';
import { packageRoot } from '../../engine/util/package-root.js';
import { enforcementTable, renderBackendsDoc, withEnforcementTable } from '../backends-doc.js';
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

/** docs/flows.md as it should be: its enforcement block regenerated (the rest as committed). */
export async function packagedFlowsDoc(): Promise<{ file: string; current: string; wanted: string }> {
  const file = join(packageRoot(), 'docs', 'flows.md');
  const current = await readFile(file, 'utf8').catch(() => '');
  const wanted = withEnforcementTable(current, enforcementTable(await packagedBackends()));
  if (wanted === undefined) throw new Error(`${file} has no enforcement table markers`);
  return { file, current, wanted };
}

/** `neo backends doc [--write | --check]`: print, write or verify docs/backends.md (and the table in docs/flows.md). */
export async function run(io: CommandIO, options: { write?: boolean; check?: boolean }): Promise<number> {
  const doc = await packagedBackendsDoc();
  const file = join(packageRoot(), 'docs', 'backends.md');
  const flows = await packagedFlowsDoc();
  if (options.write) {
    await writeFile(file, doc);
    await writeFile(flows.file, flows.wanted);
    writeLine(io.stdout, `wrote ${file} and the enforcement table in ${flows.file}`);
    return EXIT.ok;
  }
  if (options.check) {
    const current = await readFile(file, 'utf8').catch(() => '');
    const stale = [current === doc ? undefined : file, flows.current === flows.wanted ? undefined : flows.file];
    for (const path of stale)
      if (path !== undefined) writeLine(io.stderr, `${path} is stale: run \`neo backends doc --write\``);
    return stale.some((path) => path !== undefined) ? EXIT.failed : EXIT.ok;
  }
  io.stdout.write(doc);
  return EXIT.ok;
}
