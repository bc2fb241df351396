import type { GuideInput } from '../../engine/session/index.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';

export async function run(
  io: CommandIO,
  id: string,
  text: string,
  options: { model?: string; effort?: string; json?: boolean },
): Promise<number> {
  const sessionId = await resolveSessionId(io, id);
  const input: Record<string, unknown> = { op: 'guide', sessionId, text };
  if (options.model !== undefined) input.agentModel = options.model;
  if (options.effort !== undefined) input.effort = options.effort;
  const result = await sessionOp(io, input as unknown as GuideInput);
  if (options.json) writeJson(io.stdout, result);
  else writeLine(io.stdout, 'guidance queued for the next turn');
  return EXIT.ok;
}
