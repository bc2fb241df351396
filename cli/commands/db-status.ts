import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  const { db, state } = await dbos.dbStatus(neoHome(io.env));
  if (options.json) {
    writeJson(io.stdout, {
      state,
      ...(db
        ? {
            url: dbos.redactUrl(db.url),
            record: dbos.dbRecordPath(neoHome(io.env)),
            port: db.port,
            dataDir: db.dataDir,
          }
        : {}),
    });
    return EXIT.ok;
  }
  if (db === undefined) writeLine(io.stdout, 'none: `neo db up` starts an embedded PostgreSQL');
  else
    writeLine(
      io.stdout,
      `${state}: PostgreSQL on 127.0.0.1:${db.port} (data ${db.dataDir})\n  ${dbos.redactUrl(db.url)} (password in ${dbos.dbRecordPath(neoHome(io.env))})`,
    );
  return EXIT.ok;
}
