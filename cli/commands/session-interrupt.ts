import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';

export async function run(io: CommandIO, id: string, options: { json?: boolean }): Promise<number> {
  const sessionId = await resolveSessionId(io, id);
  const result = await sessionOp(io, { op: 'interrupt', sessionId });
  if (options.json) writeJson(io.stdout, result);
  else writeLine(io.stdout, 'interrupted the current turn');
  return EXIT.ok;
}
