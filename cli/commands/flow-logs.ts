import { join } from 'node:path';
import { DECISIONS_FILE, readRunSettled, runDir } from '../../engine/flow/index.js';
import { LOG_LEVELS, readLogLines, type LogLevel } from '../../engine/observability/index.js';
import { formatLogLine } from '../../engine/util/log-line.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { runIdOrLatest } from '../flow/run-arg.js';

/** `neo flow logs [runId]`: the run's decision log (the latest run's without an id), one line per decision. */
export async function run(
  io: CommandIO,
  given: string | undefined,
  options: { level?: string; json?: boolean },
): Promise<number> {
  const level = (options.level ?? 'debug') as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new UsageError('CLI_BAD_LEVEL', `--level ${options.level} is not a log level`, {
      hint: `one of ${LOG_LEVELS.join(', ')}`,
    });
  const home = neoHome(io.env);
  const record = await readRunSettled(home, await runIdOrLatest(io, home, given));
  const path = join(runDir(home, record.runId), DECISIONS_FILE);
  const lines = await readLogLines(path, level).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (lines.length === 0 && !options.json) writeLine(io.stderr, `run ${record.runId} has no decision log yet`);
  for (const line of lines) {
    if (options.json) {
      writeJsonLine(io.stdout, line);
      continue;
    }
    // Fields carry agent and command text: printed through the terminal sanitiser.
    const { at, level: lineLevel, event, pid: _pid, ...fields } = terminalSafeDeep(line);
    // A decision's fields quote agents and commands: printed through the terminal sanitiser.
    writeLine(io.stdout, terminalSafe(`${at} ${String(lineLevel).padEnd(5)} ${formatLogLine(String(event), fields)}`));
  }
  return EXIT.ok;
}
