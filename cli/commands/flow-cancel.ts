import { LocalEngine } from '../../engine/flow/index.js';
import { checkIdOrPrefix } from '../../engine/util/ids.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

/**
 * `neo flow cancel`: a local run's driving process is interrupted as by Ctrl-C (its steps are
 * stopped, the run is checkpointed `interrupted` and stays resumable); a dbos run's workflow is
 * cancelled in DBOS and its worker stops driving it.
 */
export async function run(
  io: CommandIO,
  runId: string,
  options: { json?: boolean; engine?: string; databaseUrl?: string },
): Promise<number> {
  checkIdOrPrefix('run', runId);
  if (options.engine === 'dbos') return (await import('../flow/dbos-commands.js')).cancelOnDbos(io, runId, options);
  const record = await new LocalEngine(neoHome(io.env)).interrupt(runId);
  if (options.json) writeJson(io.stdout, { runId: record.runId, engine: 'local', interrupted: record.interrupted });
  else
    writeLine(
      io.stdout,
      record.interrupted
        ? `run ${record.runId}: its process ${record.pid} is interrupted; \`neo flow resume ${record.runId}\` continues it`
        : `run ${record.runId} is not running (${record.status})`,
    );
  return EXIT.ok;
}
