import { existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';

/**
 * The repository files a brief names ("fix the rounding in src/sum.ts"): every word that looks
 * like a path and is a file under `root`. It is how a step says which files it will touch
 * before it touches them; at most 50 words are looked at.
 */
export function filesNamedIn(text: string, root: string): string[] {
  const words = text.match(/[\w@.+-]*[\w-]\.[\w]+|[\w@.+-]+(?:\/[\w@.+-]+)+/g) ?? [];
  const found = new Set<string>();
  for (const word of [...new Set(words)].slice(0, 50)) {
    const path = normalize(word.replace(/^\.\//, '')).replace(/[.,:;]+$/, '');
    if (path.startsWith('..') || path.startsWith('/')) continue;
    try {
      const full = join(root, path);
      if (existsSync(full) && statSync(full).isFile()) found.add(path);
    } catch {
      // Not a file: not named.
    }
  }
  return [...found].sort();
}
