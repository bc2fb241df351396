/**
 * Path globs for clarification rules, matched against a path RELATIVE to the session's working
 * directory (see containment.ts: a path that leaves it has no relative form and so matches no
 * rule). Pure (POSIX separators; no fs).
 */

/**
 * Whether a relative path matches a glob: `**` spans any number of segments (zero included),
 * `*` and `?` stay within one segment, dot files are matched like any other (a rule about
 * `**\/.env*` must see `.env`). The empty path (the root itself) matches only `**`.
 */
export function globMatch(glob: string, path: string): boolean {
  return globRegExp(glob).test(path);
}

const cache = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
  const cached = cache.get(glob);
  if (cached !== undefined) return cached;
  const parts = glob
    .replace(/^\.\//, '')
    .split('/')
    .filter((p) => p !== '');
  let source = '^';
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === '**') {
      source += last ? '.*' : '(?:[^/]+/)*';
      return;
    }
    source += part
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]');
    if (!last) source += '/';
  });
  const regexp = new RegExp(`${source}$`);
  cache.set(glob, regexp);
  return regexp;
}
