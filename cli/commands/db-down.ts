import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(io: CommandIO, options: { purge?: boolean; json?: boolean }): Promise<number> {
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  const home = neoHome(io.env);
  const { db, stopped } = await dbos.dbDown(home);
  if (options.purge === true) dbos.dbPurge(home);
  if (options.json) {
    writeJson(io.stdout, { stopped, purged: options.purge === true, ...(db ? { dataDir: db.dataDir } : {}) });
    return EXIT.ok;
  }
  writeLine(
    io.stdout,
    db === undefined
      ? 'no embedded PostgreSQL here (`neo db up` starts one)'
      : `${stopped ? 'stopped' : 'was not running'}: PostgreSQL in ${db.dataDir}${options.purge ? ' (data removed)' : ''}`,
  );
  return EXIT.ok;
}
