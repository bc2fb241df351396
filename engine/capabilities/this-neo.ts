import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { memoryDir, repositoryRoot } from '../memory/paths/index.js';
import { neoBinPath } from '../util/package-root.js';

/** How a builtin `neo …` MCP server runs: this neo, with the node that runs it. */
export function neoCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [neoBinPath()] };
}

/** Whether capability curation runs (NEO_CAPABILITIES=off turns it off). */
export function capabilitiesEnabled(env: NodeJS.ProcessEnv): boolean {
  return !['off', '0', 'false', 'no'].includes((env.NEO_CAPABILITIES ?? '').trim().toLowerCase());
}

/**
 * Why a builtin entry has nothing to give this project, or undefined. neo's memory server serves
 * the repository's memory: before anything was indexed or decided there, it would hand the agent
 * empty tools and instructions to use them, so it waits until the repository has a memory.
 */
export function builtinUnavailable(id: string, home: string, cwd: string): string | undefined {
  if (id !== 'neo-memory') return undefined;
  const db = join(memoryDir(home, checkoutRoot(cwd)), 'memory.db');
  return existsSync(db)
    ? undefined
    : 'this repository has no memory yet (`neo memory index`, or a flow run with memory)';
}

/** The checkout a folder belongs to: a linked worktree's main repository (whose memory neo keeps), else its own. */
function checkoutRoot(cwd: string): string {
  const root = repositoryRoot(cwd);
  try {
    const gitDir = /^gitdir: (.+)$/m.exec(readFileSync(join(root, '.git'), 'utf8'))?.[1]?.trim();
    if (gitDir === undefined) return root;
    // <main>/.git/worktrees/<name>: the main checkout is two folders above `worktrees`.
    const dir = resolve(root, gitDir);
    return dirname(dir).endsWith('/.git/worktrees') ? dirname(dirname(dirname(dir))) : root;
  } catch {
    return root; // `.git` is a folder (a checkout itself) or unreadable
  }
}
