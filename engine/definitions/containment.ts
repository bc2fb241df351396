import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from './diagnostic.js';

/**
 * Refuses a project-layer file that resolves outside its repository (a symlink to
 * `~/.aws/credentials`, or a linked `.neo/` folder): it is never read, so no diagnostic can
 * excerpt it. The refusal names the file but carries no span, because a span would make the
 * formatter print the target's first line. Undefined when the file is inside (or when the
 * repository itself cannot be resolved, which discovery would already have failed on).
 */
export function outsideRepository(file: string, repo: string): Diagnostic | undefined {
  let root: string;
  try {
    root = realpathSync(repo);
  } catch {
    return undefined;
  }
  let target: string | undefined;
  try {
    target = realpathSync(file);
  } catch {
    target = undefined;
  }
  if (target !== undefined && isInside(root, target)) return undefined;
  const shown = relative(repo, file);
  return {
    code: 'DEF_OUTSIDE_REPOSITORY',
    severity: 'error',
    message:
      target === undefined
        ? `${shown} (in ${repo}) is a link that leads nowhere; it is not read`
        : `${shown} (in ${repo}) resolves outside the repository, to ${target}; it is not read`,
    hint: 'a project definition must be a file inside the repository: replace the link with the file itself',
  };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}
