/**
 * Process-bound cgroups a finished command left empty, with no fork refused and never frozen:
 * to the next command each is the same as a new one (nothing in it, nothing counted), and taking
 * it spares a `mkdir` and a `rmdir` of a cgroup (the kernel's setup and teardown) per command.
 * They are removed when this process exits; a neo killed before that leaves them to the next
 * neo's sweep of stale cgroups (`process-bound.ts`), as it would a command's own.
 */
import { rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const spares: string[] = [];
/** More than a run's parallel commands need; past it a released cgroup is removed. */
const MAX_SPARES = 64;
let removedOnExit = false;

/** A spare cgroup's folder capped at `max`, if one is kept: the caller's now. */
export function takeSpare(max: number): string | undefined {
  for (let path = spares.pop(); path !== undefined; path = spares.pop()) {
    try {
      writeFileSync(join(path, 'pids.max'), String(max));
      return path;
    } catch {
      remove(path); // not a cgroup any more: another is taken, or a new one made
    }
  }
  return undefined;
}

/** Keeps an empty, clean cgroup for the next command; false when enough are kept already. */
export function keepSpare(path: string): boolean {
  if (spares.length >= MAX_SPARES) return false;
  if (!removedOnExit) process.once('exit', removeSpares);
  removedOnExit = true;
  spares.push(path);
  return true;
}

function removeSpares(): void {
  for (const path of spares.splice(0)) remove(path);
}

function remove(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // gone, or left to the next neo's sweep
  }
}
