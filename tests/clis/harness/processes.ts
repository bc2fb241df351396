import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Live processes whose working directory is inside `dir` (zombies excluded): after a session
 * stops, none of the CLI's processes may be left running in its repository.
 */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // The process went away while we looked, or is not ours to inspect.
    }
  }
  return found;
}
