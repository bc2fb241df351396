import { createSessionService, silentLog } from '../../engine/session/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { trackRecords } from '../../engine/learning/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { CLI_SCOPE } from '../session/client.js';

/** The list-backends op, run in this process: it needs no live session. */
export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const service = createSessionService({
    home: neoHome(io.env),
    definitions: set,
    log: silentLog,
    defaultCwd: io.cwd,
    trackRecord: (backend) => trackRecords(neoHome(io.env)).lines(backend),
  });
  try {
    const { backends } = await service.execute({ op: 'list-backends' }, { scope: CLI_SCOPE });
    if (options.json) {
      writeJson(io.stdout, { backends });
      return EXIT.ok;
    }
    const p = painter(useColor(io.stdout, io.env));
    const rows = backends.map((b) => [
      p.bold(b.id),
      b.availability.available ? p.green(b.availability.status) : p.red(b.availability.status),
      b.descriptor.postures.join(','),
      b.availability.version ?? b.availability.detail ?? '',
    ]);
    writeLine(io.stdout, table([['ID', 'AVAILABLE', 'POSTURES', 'VERSION / DETAIL'].map((h) => p.dim(h)), ...rows]));
    return EXIT.ok;
  } finally {
    await service.close();
  }
}
