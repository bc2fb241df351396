/**
 * How `neo session …` reaches live sessions: every op goes to the session daemon of this
 * NEO_HOME over its unix socket. `start` starts the daemon when none runs; the other ops, with
 * no daemon, are answered by an in-process service that holds no live session (so a stopped or
 * orphaned session reads as such, from the store).
 */
import { realpathSync } from 'node:fs';
import { loadDefinitions } from '../../engine/definitions/index.js';
import {
  CodeSessionStore,
  connectDaemon,
  createSessionService,
  isSessionId,
  silentLog,
  type CodeSessionInput,
  type CodeSessionOutputs,
} from '../../engine/session/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { trackRecords } from '../../engine/learning/index.js';
import type { CommandIO } from '../io.js';
import { checkIdOrPrefix } from '../../engine/util/ids.js';

/** The ownership scope of a person at the command line. */
export const CLI_SCOPE = 'owner';

/** Runs one op for the person at the terminal. */
export async function sessionOp<I extends CodeSessionInput>(
  io: CommandIO,
  input: I,
): Promise<CodeSessionOutputs[I['op']]> {
  const home = neoHome(io.env);
  const client = await connectDaemon(home, input.op === 'start' ? { spawn: daemonArgv(), env: io.env } : {});
  if (client !== undefined) {
    try {
      // A start carries this shell's environment: the session runs with the keys, base URLs and
      // PATH the person has now, not those of whichever command once started the daemon.
      return (await client.execute(
        input,
        CLI_SCOPE,
        io.cwd,
        input.op === 'start' ? io.env : undefined,
      )) as CodeSessionOutputs[I['op']];
    } finally {
      client.close();
    }
  }
  const { set } = await loadDefinitions({ cwd: io.cwd, home });
  const service = createSessionService({
    home,
    definitions: set,
    log: silentLog,
    defaultCwd: io.cwd,
    trackRecord: (backend) => trackRecords(home).lines(backend),
  });
  try {
    return await service.execute(input, { scope: CLI_SCOPE });
  } finally {
    await service.close();
  }
}

/** argv that runs this very neo binary as the daemon. */
function daemonArgv(): string[] {
  const bin = process.argv[1];
  if (bin === undefined) throw new Error('cannot tell which neo binary is running');
  return [process.execPath, realpathSync(bin), 'session', 'daemon'];
}

/** A full session id, or the one recorded session whose id starts with `prefix`. */
export async function resolveSessionId(io: CommandIO, idOrPrefix: string): Promise<string> {
  if (isSessionId(idOrPrefix)) return idOrPrefix;
  checkIdOrPrefix('session', idOrPrefix);
  const records = await new CodeSessionStore(neoHome(io.env), { log: silentLog }).list();
  const matches = records.filter((r) => r.sessionId.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0]!.sessionId;
  if (matches.length > 1) {
    throw new UsageError('CLI_SESSION_AMBIGUOUS', `\`${idOrPrefix}\` matches ${matches.length} sessions`, {
      hint: 'give more of the id (see `neo sessions list`)',
    });
  }
  throw new UsageError('SESSION_NOT_FOUND', `no code session \`${idOrPrefix}\``, { hint: 'see `neo sessions list`' });
}
