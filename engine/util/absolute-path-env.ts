import { delimiter, isAbsolute } from 'node:path';

/**
 * PATH with only its absolute entries. A relative entry (`node_modules/.bin`, `.`, or an empty
 * one, which execvp reads as the current folder) names a folder of whatever folder a process is
 * started in — for neo, a checkout or a workspace its runs' confined steps write — so a `git` or a
 * `claude` a step planted there would run outside every sandbox, with neo's whole environment.
 * Undefined stays undefined.
 */
export function absolutePathEntries(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return path
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .join(delimiter);
}
