import { approveRun } from '../../engine/flow/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(io: CommandIO, runId: string, step: string, options: { decision: string; note?: string; json?: boolean }): Promise<number> {
  const result = await approveRun({ home: neoHome(io.env), runId, step, decision: options.decision, ...(options.note === undefined ? {} : { note: options.note }) });
  if (options.json) {
    writeJson(io.stdout, { runId: result.record.runId, step: result.key, decision: options.decision, live: result.live });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(io.stdout, `${p.green('✓')} ${result.key} of run ${result.record.runId}: ${options.decision}${options.note ? ` (${options.note})` : ''}`);
  writeLine(io.stdout, result.live ? '  the waiting run picks it up now' : `  no process is running it; it takes effect on: neo flow resume ${result.record.runId}`);
  return EXIT.ok;
}
