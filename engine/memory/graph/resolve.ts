import { posix } from 'node:path';
import type { LanguageId } from './languages.js';

const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** What resolving needs of the repository: its code files, and its Go modules (go.mod's folder and `module` path). */
export interface ResolveContext {
  files: ReadonlySet<string>;
  goModules: ReadonlyArray<{ dir: string; module: string }>;
}

/** The `module` path a go.mod declares, or undefined. */
export function goModulePath(goMod: string): string | undefined {
  return goMod.match(/^\s*module\s+"?([^\s"]+)"?\s*$/m)?.[1];
}

/**
 * The repository files an import names, where the language makes it cheap: a relative JS/TS
 * import (`./x.js` is `./x.ts` under TypeScript's ESM rule, a folder its index), a Python module
 * (relative, or dotted from the root or `src/`), a Go package under a go.mod's module path (every
 * non-test file of its folder: a Go package is a folder), a Rust `mod x;` or a `use` of
 * `crate::`/`self::`/`super::` (or a module of the current one) to the module's file. Empty when
 * it leaves the repository or names a package.
 */
export function resolveImport(from: string, spec: string, lang: LanguageId, context: ResolveContext): string[] {
  const { files } = context;
  const dir = posix.dirname(from);
  if (lang === 'typescript' || lang === 'tsx' || lang === 'javascript') {
    if (!spec.startsWith('.')) return [];
    const base = posix.normalize(posix.join(dir, spec));
    const stem = base.replace(/\.[cm]?[jt]sx?$/, '');
    const candidates = [base, ...JS_EXTENSIONS.map((e) => stem + e), ...JS_EXTENSIONS.map((e) => `${base}/index${e}`)];
    const hit = candidates.find((c) => files.has(c));
    return hit === undefined ? [] : [hit];
  }
  if (lang === 'python') return resolvePython(dir, spec, files);
  if (lang === 'go') return resolveGo(spec, context);
  if (lang === 'rust') return resolveRust(from, spec, files);
  return [];
}

function resolvePython(dir: string, spec: string, files: ReadonlySet<string>): string[] {
  let parts: string[];
  let roots: string[];
  if (spec.startsWith('.')) {
    const dots = spec.match(/^\.+/)![0].length;
    roots = [posix.normalize(posix.join(dir, ...Array<string>(dots - 1).fill('..')))];
    parts = spec
      .slice(dots)
      .split('.')
      .filter((p) => p !== '');
  } else {
    roots = ['.', 'src'];
    parts = spec.split('.');
  }
  for (const root of roots) {
    const base = posix.normalize(posix.join(root, ...parts));
    for (const c of [`${base}.py`, `${base}/__init__.py`]) if (files.has(c)) return [c];
  }
  return [];
}

/** A Go import path inside one of the repository's modules → the package folder's non-test files. */
function resolveGo(spec: string, context: ResolveContext): string[] {
  // The longest module path that prefixes the import wins (nested modules).
  const owners = context.goModules
    .filter((m) => spec === m.module || spec.startsWith(`${m.module}/`))
    .sort((a, b) => b.module.length - a.module.length);
  const owner = owners[0];
  if (owner === undefined) return [];
  const folder = posix.normalize(posix.join(owner.dir, spec.slice(owner.module.length + 1)));
  const prefix = folder === '.' ? '' : `${folder}/`;
  return [...context.files]
    .filter(
      (f) =>
        f.startsWith(prefix) && !f.slice(prefix.length).includes('/') && f.endsWith('.go') && !f.endsWith('_test.go'),
    )
    .sort();
}

/** The folder holding the crate root (`lib.rs` or `main.rs`) a Rust file belongs to: the nearest above it. */
function crateDir(from: string, files: ReadonlySet<string>): string | undefined {
  for (let at = posix.dirname(from); ; at = posix.dirname(at)) {
    const prefix = at === '.' ? '' : `${at}/`;
    if (files.has(`${prefix}lib.rs`) || files.has(`${prefix}main.rs`)) return at;
    if (at === '.' || at === '/') return undefined;
  }
}

/** A Rust file's module path under its crate: `src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`, the root `[]`. */
function modulePath(from: string, crate: string): string[] {
  const rel = crate === '.' ? from : from.slice(crate.length + 1);
  const parts = rel.replace(/\.rs$/, '').split('/');
  const last = parts[parts.length - 1];
  if (last === 'mod' || (parts.length === 1 && (last === 'lib' || last === 'main'))) parts.pop();
  return parts;
}

/** A module path's file: `a/b.rs` or `a/b/mod.rs` under the crate. */
function moduleFile(crate: string, path: readonly string[], files: ReadonlySet<string>): string | undefined {
  if (path.length === 0) return undefined;
  const base = posix.join(crate, ...path);
  return [`${base}.rs`, `${base}/mod.rs`].find((c) => files.has(c));
}

/** The file of a module itself: the crate root's `lib.rs`/`main.rs`, else its module file. */
function ownFile(crate: string, path: readonly string[], files: ReadonlySet<string>): string | undefined {
  if (path.length > 0) return moduleFile(crate, path, files);
  return [posix.join(crate, 'lib.rs'), posix.join(crate, 'main.rs')].find((c) => files.has(c));
}

/** `a::{b::C, d}` → `a::b::C`, `a::d` (one level of braces; `self` in a group is the prefix itself). */
function expandUse(spec: string): string[] {
  const open = spec.indexOf('{');
  if (open < 0) return [spec.replace(/\s+as\s+\w+$/, '').trim()];
  const head = spec.slice(0, open);
  const body = spec.slice(open + 1, spec.lastIndexOf('}'));
  const members: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= body.length; i++) {
    const c = body[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if ((c === ',' && depth === 0) || i === body.length) {
      const member = body.slice(start, i).trim();
      if (member !== '') members.push(member);
      start = i + 1;
    }
  }
  return members.flatMap((m) => (m === 'self' ? [head.replace(/::$/, '')] : expandUse(head + m)));
}

function resolveRust(from: string, spec: string, files: ReadonlySet<string>): string[] {
  const crate = crateDir(from, files);
  if (crate === undefined) return [];
  const here = modulePath(from, crate);
  const found = new Set<string>();
  // `mod x;` declares the child module x of this file's module.
  const paths = spec.startsWith('mod ') ? [`self::${spec.slice(4).trim()}`] : expandUse(spec);
  for (const path of paths) {
    const segments = path.split('::').map((s) => s.trim());
    let base: string[];
    if (segments[0] === 'crate') base = [];
    else if (segments[0] === 'self') base = here;
    else if (segments[0] === 'super') {
      base = here.slice(0, -1);
      while (segments[1] === 'super') {
        base = base.slice(0, -1);
        segments.shift();
      }
    } else base = here; // A module of the current one (an external crate resolves to nothing).
    const rest =
      segments[0] === 'crate' || segments[0] === 'self' || segments[0] === 'super' ? segments.slice(1) : segments;
    const anchored = rest.length < segments.length;
    // The longest prefix that is a module file: `crate::a::b::Thing` is `a/b.rs` when Thing is an
    // item in it; `super::Thing` (an item of the parent module) is the parent's own file.
    let file: string | undefined;
    for (let n = rest.length; n > 0 && file === undefined; n--)
      file = moduleFile(crate, [...base, ...rest.slice(0, n)], files);
    if (file === undefined && anchored) file = ownFile(crate, base, files);
    if (file !== undefined && file !== from) found.add(file);
  }
  return [...found];
}
