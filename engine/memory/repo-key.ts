import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The repository a folder belongs to: the nearest ancestor (itself included) holding `.git`,
 * followed through symlinks; the folder itself when none does. Found without spawning git: the
 * flow runtime asks once per agent step, and a step must not wait on a process for it.
 */
export function repositoryRoot(dir: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return dir;
  }
  for (let at = real; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return real;
  }
}

/** The folder of a repository's memory under NEO_HOME: `memory/<name>-<12 hex of its path>`. */
export function memoryDir(home: string, repoRoot: string): string {
  const digest = createHash('sha256').update(repoRoot).digest('hex').slice(0, 12);
  const name =
    basename(repoRoot)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return join(home, 'memory', `${name}-${digest}`);
}

/**
 * Whether the repository `dir` belongs to has a memory database: a repository without one has
 * no decisions to read, and its reader need not load the store (SQLite) to learn so.
 */
export function hasMemoryDatabase(home: string, dir: string): boolean {
  return existsSync(join(memoryDir(home, repositoryRoot(dir)), 'memory.db'));
}

/** Where a sandbox shows a repository's memory folder, read-only (the sandbox hides NEO_HOME and /run). */
export const CONFINED_MEMORY_DIR = '/run/neo-memory';

/** Whether memory is switched off for this process (`NEO_MEMORY=off`). */
export function memoryOff(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NEO_MEMORY === 'off';
}
