import type { SetPostureInput } from '../../engine/session/index.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';

export async function run(io: CommandIO, id: string, posture: string, options: { json?: boolean }): Promise<number> {
  const sessionId = await resolveSessionId(io, id);
  const result = await sessionOp(io, { op: 'set-posture', sessionId, posture } as unknown as SetPostureInput);
  if (options.json) writeJson(io.stdout, result);
  else writeLine(io.stdout, `posture ${result.posture}`);
  return EXIT.ok;
}
