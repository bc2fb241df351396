import { openMemory, serveMemoryMcp } from '../../engine/memory/index.js';
import { POSTURES } from '../../engine/posture/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { packageVersion } from '../../engine/util/package-root.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIO } from '../io.js';

/**
 * `neo memory mcp`: serves the repository's memory over MCP on stdio until the client closes it.
 * stdout is the protocol's: nothing else may be written there.
 */
export async function run(io: CommandIO, options: { posture?: string; repo?: string }): Promise<number> {
  const posture = options.posture ?? 'default';
  if (!(POSTURES as readonly string[]).includes(posture))
    throw new UsageError('CLI_BAD_OPTION', `--posture must be one of ${POSTURES.join(', ')}, not \`${posture}\``);
  const memory = openMemory(neoHome(io.env), options.repo ?? io.cwd);
  try {
    await serveMemoryMcp(memory, { posture, version: packageVersion() });
    return EXIT.ok;
  } finally {
    memory.db.close();
  }
}
