import { relative } from 'node:path';
import type { DefinitionSet } from './definition-set.js';
import { isUnpinnedWarning } from './pins.js';

/**
 * What a run must say before it starts when its project is not trusted, or its files changed
 * since `neo trust`: every privileged field the project layer set and neo ignored, where, and the command that allows them. Undefined when
 * nothing was ignored.
 */
export function untrustedNotice(set: DefinitionSet, options: { cwd: string; repo?: string }): string | undefined {
  if (set.untrusted.length === 0) return undefined;
  const lines = set.untrusted.map((d) => {
    const where = d.span === undefined ? '' : `${relative(options.cwd, d.span.file)}:${d.span.start.line}: `;
    return `  ${where}${d.message.replace(/ is ignored: this project is not trusted$/, ' is ignored')}`;
  });
  const count = lines.length === 1 ? 'one thing' : `${lines.length} things`;
  const repo = options.repo === undefined ? 'the repository' : options.repo;
  // Only a trusted project has pins, so one unpinned warning says the project is trusted.
  const changed = set.untrusted.some((d) => isUnpinnedWarning(d.message));
  return [
    changed
      ? `this project's files changed since \`neo trust\`: neo ignored ${count} they may not set without it`
      : `this project is not trusted: neo ignored ${count} it may not set`,
    ...lines,
    `  run \`neo trust\` in ${repo}${changed ? ' again' : ''} to allow them, once you have read them`,
  ].join('\n');
}
