/**
 * AGENTS.md discovery: every AGENTS.md from the repository root down to the working directory,
 * outermost first, so a nested folder's instructions come last and read as the most specific.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Most bytes read from one AGENTS.md. */
const MAX_BYTES = 64 * 1024;

export interface ProjectInstructions {
  /** Path relative to the repository root (`AGENTS.md`, `pkg/api/AGENTS.md`). */
  path: string;
  text: string;
}

export async function discoverAgentsMd(repoRoot: string, cwd: string): Promise<ProjectInstructions[]> {
  const root = resolve(repoRoot);
  const dirs: string[] = [];
  let dir = resolve(cwd);
  const rel = relative(root, dir);
  // A cwd outside the repository gets only its own AGENTS.md.
  if (rel.startsWith('..') || rel.includes(`..${sep}`)) {
    dirs.push(dir);
  } else {
    for (;;) {
      dirs.unshift(dir);
      if (dir === root) break;
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  const out: ProjectInstructions[] = [];
  for (const folder of dirs) {
    const file = join(folder, 'AGENTS.md');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    if (Buffer.byteLength(text) > MAX_BYTES)
      text = `${Buffer.from(text).subarray(0, MAX_BYTES).toString('utf8')}\n[… cut at ${MAX_BYTES} bytes]`;
    out.push({ path: relative(root, file).split(sep).join('/') || 'AGENTS.md', text: text.trim() });
  }
  return out;
}

/** The prompt section for the instructions found. */
export function agentsMdSection(found: readonly ProjectInstructions[]): string {
  if (found.length === 0) return '';
  return ['# Project instructions (AGENTS.md)', ...found.map((f) => `## ${f.path}\n${f.text}`)].join('\n\n');
}
