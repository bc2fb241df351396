import { decisionLine, openMemory, queryDecisions, type DecisionQuery } from '../../engine/memory/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { UsageError } from '../../engine/util/errors.js';

interface Options {
  file?: string;
  symbol?: string;
  search?: string;
  run?: string;
  limit?: string;
  json?: boolean;
}

/** `neo memory decisions`: the repository's decisions, newest first, filtered. */
export async function run(io: CommandIO, options: Options): Promise<number> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new UsageError('CLI_BAD_OPTION', `--limit must be a whole number of at least 1, not \`${options.limit}\``);
  const memory = openMemory(neoHome(io.env), io.cwd);
  try {
    const query: DecisionQuery = {
      ...(options.file === undefined ? {} : { file: options.file }),
      ...(options.symbol === undefined ? {} : { symbol: options.symbol }),
      ...(options.search === undefined ? {} : { search: options.search }),
      ...(options.run === undefined ? {} : { runId: options.run }),
      ...(limit === undefined ? {} : { limit }),
    };
    const decisions = queryDecisions(memory.db, query);
    if (options.json) {
      writeJson(io.stdout, { repo: memory.repoRoot, decisions });
      return EXIT.ok;
    }
    if (decisions.length === 0) {
      writeLine(
        io.stdout,
        `no decisions recorded for ${memory.repoRoot}${Object.keys(query).length > 0 ? ' that match' : ''}`,
      );
      return EXIT.ok;
    }
    // A decision quotes a check's output and an agent's brief: data, printed through the terminal sanitiser.
    for (const decision of decisions)
      writeLine(io.stdout, terminalSafe(`#${decision.id} ${decisionLine(decision).slice(2)}`));
    return EXIT.ok;
  } finally {
    memory.db.close();
  }
}
