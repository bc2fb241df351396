import { personaView } from '../../engine/definitions/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const personas = set.list('persona').map((d) => ({ ...personaView(d), layer: d.layer, file: d.file }));
  if (options.json) {
    writeJson(
      io.stdout,
      personas.map(({ id, description, driver, layer, file }) => ({ id, description, driver, layer, file })),
    );
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const rows = personas.map((v) => [
    p.bold(v.id),
    v.driver ? p.cyan('driver') : '',
    p.dim(v.layer),
    truncate(v.description, 70),
  ]);
  writeLine(io.stdout, table([[p.dim('ID'), p.dim('ROLE'), p.dim('LAYER'), p.dim('DESCRIPTION')], ...rows]));
  return EXIT.ok;
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
