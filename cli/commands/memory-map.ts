import { relative, resolve } from 'node:path';
import { openMemory, repoMap } from '../../engine/memory/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

/** `neo memory map [files…] [--symbol S…]`: the ranked repository map, personalised by the files and symbols named, in a token budget. */
export async function run(
  io: CommandIO,
  files: string[],
  options: { tokens?: string; symbol?: string[] },
): Promise<number> {
  const tokens = Number(options.tokens ?? '1500');
  if (!Number.isInteger(tokens) || tokens < 50)
    throw new UsageError('CLI_BAD_OPTION', `--tokens must be a whole number of at least 50, not \`${options.tokens}\``);
  const memory = openMemory(neoHome(io.env), io.cwd);
  try {
    const focus = files.map((f) => relative(memory.repoRoot, resolve(io.cwd, f)));
    writeLine(io.stdout, terminalSafe(repoMap(memory.db, { tokens, focus, symbols: options.symbol ?? [] })));
    return EXIT.ok;
  } finally {
    memory.db.close();
  }
}
