/**
 * Path globs for clarification rules, matched against a path RELATIVE to the session's working
 * directory. A path that resolves outside it has no relative form and matches nothing, so an
 * allow rule can never cover it. Pure (POSIX separators; no fs).
 */

/**
 * The path of `target` relative to `root` with `.` and `..` resolved, or undefined when it
 * leaves `root`. `target` may be absolute or relative to `root`.
 */
export function relativeInside(root: string, target: string): string | undefined {
  const base = segments(root);
  const full = target.startsWith('/') ? segments(target) : resolveSegments([...base], target.split('/'));
  if (full === undefined) return undefined;
  if (full.length < base.length || base.some((part, i) => full[i] !== part)) return undefined;
  return full.slice(base.length).join('/');
}

function segments(path: string): string[] {
  return resolveSegments([], path.split('/')) ?? [];
}

function resolveSegments(stack: string[], parts: string[]): string[] | undefined {
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return undefined;
      stack.pop();
    } else stack.push(part);
  }
  return stack;
}

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
