import type { StopInput } from '../../engine/session/index.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';

export async function run(
  io: CommandIO,
  id: string,
  options: { outcome?: string; note?: string; json?: boolean },
): Promise<number> {
  const sessionId = await resolveSessionId(io, id);
  const input: Record<string, unknown> = { op: 'stop', sessionId };
  if (options.outcome !== undefined) input.outcome = options.outcome;
  if (options.note !== undefined) input.note = options.note;
  const result = await sessionOp(io, input as unknown as StopInput);
  if (options.json) writeJson(io.stdout, result);
  else writeLine(io.stdout, result.alreadyStopped ? `${sessionId} was already stopped` : `stopped ${sessionId}`);
  return EXIT.ok;
}
