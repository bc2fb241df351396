import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(
  io: CommandIO,
  options: { port?: string; dataDir?: string; json?: boolean },
): Promise<number> {
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  const port = dbos.parsePort(options.port);
  const { db, started } = await dbos.dbUp(neoHome(io.env), {
    ...(port === undefined ? {} : { port }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  });
  if (options.json) {
    writeJson(io.stdout, {
      url: dbos.redactUrl(db.url),
      record: dbos.dbRecordPath(neoHome(io.env)),
      port: db.port,
      dataDir: db.dataDir,
      started,
    });
    return EXIT.ok;
  }
  writeLine(
    io.stdout,
    `${started ? 'started' : 'already running'}: PostgreSQL on 127.0.0.1:${db.port} (data ${db.dataDir})`,
  );
  writeLine(io.stdout, `  ${dbos.redactUrl(db.url)} (password in ${dbos.dbRecordPath(neoHome(io.env))})`);
  writeLine(
    io.stdout,
    '  workers and `neo flow run --engine dbos` on this NEO_HOME use it; stop it with `neo db down`',
  );
  return EXIT.ok;
}
