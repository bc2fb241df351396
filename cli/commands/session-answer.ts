import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';
import { defined } from '../../engine/util/defined.js';

export async function run(
  io: CommandIO,
  id: string,
  clarificationId: string,
  options: { allow?: boolean; deny?: boolean; reason?: string; note?: string; json?: boolean },
): Promise<number> {
  if (options.allow === options.deny) {
    throw new UsageError(
      'CLI_BAD_OPTION',
      options.allow ? 'give --allow or --deny, not both' : 'say --allow or --deny',
      { hint: 'neo session answer <id> <clarificationId> --deny --reason "…"' },
    );
  }
  const sessionId = await resolveSessionId(io, id);
  const input = {
    op: 'answer' as const,
    sessionId,
    clarificationId,
    allow: options.allow === true,
    ...defined({ reason: options.reason, note: options.note }),
  };
  const result = await sessionOp(io, input);
  if (options.json) writeJson(io.stdout, result);
  else
    writeLine(
      io.stdout,
      `${result.clarification.allow ? 'allowed' : 'denied'} ${result.clarification.toolName} (${result.clarification.clarificationId})`,
    );
  return EXIT.ok;
}
