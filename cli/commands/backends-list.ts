import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { POSTURES } from '../../engine/definitions/index.js';

export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const backends = set.list('backend');
  if (options.json) {
    writeJson(io.stdout, backends.map((d) => ({ id: d.id, layer: d.layer, file: d.file, ...d.data })));
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const yes = (on: boolean | undefined) => (on ? p.green('yes') : p.dim('no'));
  const header = ['ID', 'PROTOCOL', 'POSTURES', 'CLARIFY', 'RESUME', 'MODEL', 'EFFORT', 'COST'].map((h) => p.dim(h));
  const rows = backends.map((d) => {
    const b = d.data;
    return [
      p.bold(d.id),
      b.protocol,
      POSTURES.filter((posture) => b.postureMap[posture] !== undefined).join(','),
      yes(b.clarifySupport),
      yes(b.resume?.supported),
      b.modelSelection,
      b.effortSupport?.levels.length ? b.effortSupport.levels.join(',') : p.dim('—'),
      b.costProfile,
    ];
  });
  writeLine(io.stdout, table([header, ...rows]));
  return EXIT.ok;
}
