import { fstatSync, readlinkSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * The regular files this process's stdout and stderr write into (`neo flow run --json >
 * run.ndjson` inside the checkout): neo writes them itself, so a change to them is never an
 * agent's. Linux names an open file's path in /proc; elsewhere there are none to name.
 */
export function ownOutputFiles(): string[] {
  const files: string[] = [];
  for (const fd of [1, 2]) {
    try {
      if (!fstatSync(fd).isFile()) continue;
      const path = readlinkSync(`/proc/self/fd/${fd}`);
      if (isAbsolute(path) && !files.includes(path)) files.push(path);
    } catch {
      // A closed descriptor or no /proc: nothing of neo's own to leave out.
    }
  }
  return files;
}
