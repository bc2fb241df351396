import { latestRunId } from '../../engine/flow/index.js';
import { writeLine, type CommandIO } from '../io.js';
import { asInvoked } from '../invocation.js';

/**
 * The run a reading command (`neo flow show`, `neo flow logs`) was asked for: the id or prefix
 * given, else the latest run, named on stderr so stdout stays the run's own output (a pipe, --json).
 */
export async function runIdOrLatest(io: CommandIO, home: string, runId: string | undefined): Promise<string> {
  if (runId !== undefined) return runId;
  const latest = await latestRunId(home);
  writeLine(io.stderr, asInvoked(`showing the latest run, ${latest} (\`neo flow list\` lists the others)`));
  return latest;
}
