import { indexRepository, openMemory } from '../../engine/memory/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { relative, resolve } from 'node:path';

/** `neo memory index [path]`: brings the repository's code graph up to date (only changed files are parsed). */
export async function run(io: CommandIO, path: string | undefined, options: { json?: boolean }): Promise<number> {
  const memory = openMemory(neoHome(io.env), io.cwd);
  try {
    // A long index waits for another writer rather than giving up at the run's short busy timeout.
    memory.db.pragma('busy_timeout = 10000');
    const only = path === undefined ? undefined : relative(memory.repoRoot, resolve(io.cwd, path));
    const report = await indexRepository(memory.db, memory.repoRoot, only === undefined ? {} : { only });
    if (options.json) writeJson(io.stdout, { repo: memory.repoRoot, ...report });
    else
      writeLine(
        io.stdout,
        `indexed ${memory.repoRoot}: ${report.files} files, ${report.parsed} parsed, ${report.unchanged} unchanged, ${report.removed} removed, ${report.skipped} skipped (over 512 KB) in ${report.ms} ms`,
      );
    return EXIT.ok;
  } finally {
    memory.db.close();
  }
}
