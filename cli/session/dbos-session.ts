/**
 * `neo sessions show <id> --engine dbos`: an agent step's code session of a dbos run, from the
 * copy its worker keeps in the database (the session itself lives in the worker's NEO_HOME), so
 * any machine that reaches the database can read it. Loaded only with `--engine dbos`.
 */
import { checkIdOrPrefix } from '../../engine/util/ids.js';
import type { CommandIO } from '../io.js';
import type { ShownSession } from '../commands/sessions-show.js';
import { using, type EngineFlags } from '../flow/dbos-commands.js';

export async function dbosSession(io: CommandIO, idOrPrefix: string, flags: EngineFlags): Promise<ShownSession> {
  checkIdOrPrefix('session', idOrPrefix);
  return using(io, flags, async (client) => {
    const row = await client.session(idOrPrefix);
    return {
      record: row.record,
      events: await client.sessionEvents(row.sessionId),
      dbos: { runId: row.runId, step: row.step, worker: row.executor },
    };
  });
}
