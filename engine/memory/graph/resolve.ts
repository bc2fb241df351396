import { posix } from 'node:path';
import type { LanguageId } from './languages.js';

const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The repository file an import names, where the language makes it cheap: a relative JS/TS
 * import (`./x.js` is `./x.ts` under TypeScript's ESM rule, a folder its index), a Python module
 * (relative, or dotted from the root or `src/`). Go packages resolve to their folder; Rust `use`
 * paths are left to name matching. Undefined when it leaves the repository or is a package.
 */
export function resolveImport(
  from: string,
  spec: string,
  lang: LanguageId,
  files: ReadonlySet<string>,
): string | undefined {
  const dir = posix.dirname(from);
  if (lang === 'typescript' || lang === 'tsx' || lang === 'javascript') {
    if (!spec.startsWith('.')) return undefined;
    const base = posix.normalize(posix.join(dir, spec));
    const stem = base.replace(/\.[cm]?[jt]sx?$/, '');
    const candidates = [base, ...JS_EXTENSIONS.map((e) => stem + e), ...JS_EXTENSIONS.map((e) => `${base}/index${e}`)];
    return candidates.find((c) => files.has(c));
  }
  if (lang === 'python') {
    let parts: string[];
    let root: string[];
    if (spec.startsWith('.')) {
      const dots = spec.match(/^\.+/)![0].length;
      root = [posix.normalize(posix.join(dir, ...Array<string>(dots - 1).fill('..')))];
      parts = spec
        .slice(dots)
        .split('.')
        .filter((p) => p !== '');
    } else {
      root = ['.', 'src'];
      parts = spec.split('.');
    }
    for (const r of root) {
      const base = posix.normalize(posix.join(r, ...parts));
      for (const c of [`${base}.py`, `${base}/__init__.py`]) if (files.has(c)) return c;
    }
    return undefined;
  }
  return undefined;
}
