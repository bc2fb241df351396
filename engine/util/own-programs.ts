/**
 * Where neo finds the programs it starts for itself: git, bwrap, prlimit, rg, a backend's CLI and
 * its `--version` probe. The one rule: never through a PATH entry that lies inside a tree a
 * confined step can write — the folder neo runs in and the repository holding it, NEO_HOME (the
 * runs' worktrees and copies), and every workspace a run of this process opens (its checkout, its
 * worktree: {@link distrustTree}). `npx neo` and `npm run` put the project's `node_modules/.bin`
 * (absolute) first on PATH; a `git` or `bwrap` a confined `inplace` step planted there would
 * otherwise run outside every sandbox, with neo's whole environment.
 *
 * A step's own command keeps the user's PATH: it runs confined, or is the user's own unconfined
 * command. Relative entries are dropped at start already (absolute-path-env.ts) and skipped here.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { homedir } from 'node:os';
import { neoHome } from './neo-home.js';

const distrusted = new Set<string>();
let cached: { key: string; path: string } | undefined;

/** Adds a tree a run's confined steps write (a workspace, its checkout) to the ones never searched. */
export function distrustTree(dir: string): void {
  const real = realOrSelf(resolve(dir));
  if (distrusted.has(real)) return;
  distrusted.add(real);
  cached = undefined;
}

/** Adds the project holding `dir` (a plan's folder): its checkout, else the folder itself ({@link projectTree}). */
export function distrustProject(dir: string): void {
  const tree = projectTree(resolve(dir));
  if (tree !== undefined) distrustTree(tree);
}

/** `path` (the process's PATH by default) less every entry inside a distrusted tree or relative. */
export function ownProgramsPath(path: string | undefined = process.env.PATH): string {
  const whole = path ?? '';
  const cwd = process.cwd();
  const key = `${whole}\0${cwd}\0${process.env.NEO_HOME ?? ''}`;
  if (cached?.key === key) return cached.path;
  const trees = untrustedTrees(cwd);
  const kept = whole
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .filter((dir) => {
      const real = realOrSelf(dir);
      return !trees.some((tree) => within(tree, dir) || within(tree, real));
    })
    .join(delimiter);
  cached = { key, path: kept };
  return kept;
}

/** The absolute path of `name` on the programs' PATH (an executable file), else undefined. */
export function findOwnProgram(name: string, path?: string): string | undefined {
  for (const dir of ownProgramsPath(path).split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

function untrustedTrees(cwd: string): string[] {
  const trees = [realOrSelf(neoHome()), ...distrusted];
  const here = projectTree(cwd);
  if (here !== undefined) trees.push(here);
  return trees;
}

/**
 * The checkout holding `dir`, else `dir` — unless that is the home or above it (`neo doctor`
 * from ~, a daemon in /): the user's own ~/.local/bin is no project's folder. A run in such a
 * folder still distrusts it while it runs (its workspace: {@link distrustTree}).
 */
function projectTree(dir: string): string | undefined {
  const here = realOrSelf(dir);
  const home = realOrSelf(homedir());
  return [workTreeTop(here), here].find((tree) => tree !== undefined && !within(tree, home));
}

/** The nearest folder at or above `dir` holding a `.git` entry (a checkout or a worktree). */
function workTreeTop(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

function within(tree: string, path: string): boolean {
  return path === tree || path.startsWith(tree.endsWith(sep) ? tree : tree + sep);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
