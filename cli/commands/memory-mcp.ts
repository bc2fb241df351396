import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONFINED_MEMORY_DIR,
  openConfinedMemory,
  openMemory,
  serveMemoryMcp,
  type MemoryDb,
} from '../../engine/memory/index.js';
import { POSTURES } from '../../engine/posture/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { packageVersion } from '../../engine/util/package-root.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIO } from '../io.js';

/**
 * `neo memory mcp`: serves the repository's memory over MCP on stdio until the client closes it.
 * stdout is the protocol's: nothing else may be written there. Inside a sandbox that shows the
 * repository's memory at CONFINED_MEMORY_DIR it serves that, read-only, and refuses record_decision.
 */
export async function run(io: CommandIO, options: { posture?: string; repo?: string }): Promise<number> {
  const posture = options.posture ?? 'default';
  if (!(POSTURES as readonly string[]).includes(posture))
    throw new UsageError('CLI_BAD_OPTION', `--posture must be one of ${POSTURES.join(', ')}, not \`${posture}\``);
  // Inside a sandbox NEO_HOME is hidden; neo shows the repository's memory folder read-only at
  // CONFINED_MEMORY_DIR instead (engine/flow/runtime/memory-hook.ts), and only that.
  const confined = existsSync(join(CONFINED_MEMORY_DIR, 'memory.db'));
  let memory: MemoryDb | undefined;
  const open = () => (memory ??= confined ? openConfinedMemory() : openMemory(neoHome(io.env), options.repo ?? io.cwd));
  try {
    await serveMemoryMcp(open, { posture, version: packageVersion(), confined });
    return EXIT.ok;
  } finally {
    memory?.db.close();
  }
}
