/**
 * Whether the paths an ask names stay inside the folder a session is confined to. Pure: the
 * caller resolves each path to its real location first (symlinks followed, see
 * engine/execution/paths.ts) and hands over the result; without one, a path is judged lexically
 * (`.` and `..` resolved). POSIX separators.
 */

/** A path an ask names, and where it really leads. */
export interface ResolvedPath {
  /** The path as the backend gave it (absolute, or relative to the session's folder). */
  given: string;
  /** Its absolute real path (symlinks followed through the nearest existing ancestor). */
  real?: string;
  /** Why it could not be followed safely (a dangling symlink, a NUL byte); the path is then refused. */
  problem?: string;
}

/** Why a set of paths is not contained, naming the first path that is not. */
export interface ContainmentProblem {
  path: string;
  why: 'outside' | 'git' | 'agent-config' | 'unresolved';
  reason: string;
}

/**
 * The path of `target` relative to `root` with `.` and `..` resolved, or undefined when it leaves
 * `root`. `target` may be absolute or relative to `root`. The root itself is `''`.
 */
export function relativeInside(root: string, target: string): string | undefined {
  const base = segments(root) ?? [];
  const full = target.startsWith('/') ? segments(target) : resolveSegments([...base], target.split('/'));
  if (full === undefined) return undefined;
  if (full.length < base.length || base.some((part, i) => full[i] !== part)) return undefined;
  return full.slice(base.length).join('/');
}

/** Whether a path relative to the workspace lies in git's metadata: a `.git` folder or file at any depth. */
export function isGitPath(relative: string): boolean {
  return relative.split('/').some((part) => part.toLowerCase() === '.git');
}

/** `target` resolved lexically against `root` (absolute, `.` and `..` resolved; `/..` stays `/`). */
export function lexicalPath(root: string, target: string): string {
  const parts = target.startsWith('/') ? segments(target) : resolveSegments(segments(root) ?? [], target.split('/'));
  return `/${(parts ?? []).join('/')}`;
}

/** Whether a path relative to the workspace is (or lies in) one of `configs`, paths relative to it too. */
export function isAgentConfigPath(relative: string, configs: readonly string[]): boolean {
  return configs.some((config) => relative === config || relative.startsWith(`${config}/`));
}

/**
 * The first problem with writing to `paths` from a session confined to `root`: a path that could
 * not be resolved, leaves the root, lies in git's metadata, or is the agent CLI's own
 * configuration in the workspace (`agentConfig`, its descriptor's `projectConfig`: hooks and MCP
 * servers the CLI would run). A path's real location decides (so a symlink out of the workspace,
 * or into `.git`, does not pass); the path as given is checked too. `root` is the real path of
 * the folder when `paths` carry real paths.
 */
export function writeProblem(
  root: string,
  paths: readonly ResolvedPath[],
  agentConfig: readonly string[] = [],
): ContainmentProblem | undefined {
  for (const path of paths) {
    const outside = outsideProblem(root, path);
    if (outside !== undefined) return outside;
    const real = relativeInside(root, path.real ?? lexicalPath(root, path.given)) ?? '';
    const given = relativeInside(root, path.given) ?? '';
    if (isGitPath(real) || isGitPath(given))
      return {
        path: path.given,
        why: 'git',
        reason: `${path.given} is git metadata (.git): below posture full no agent may change it, because git runs the commands its config names`,
      };
    if (isAgentConfigPath(real, agentConfig) || isAgentConfigPath(given, agentConfig))
      return {
        path: path.given,
        why: 'agent-config',
        reason: `${path.given} configures the agent CLI itself (hooks, MCP servers): below posture full no agent may change it, because the CLI would run what it names`,
      };
  }
  return undefined;
}

/** The first path that could not be resolved or leads outside `root`. */
export function outsideRoot(root: string, paths: readonly ResolvedPath[]): ContainmentProblem | undefined {
  for (const path of paths) {
    const problem = outsideProblem(root, path);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function outsideProblem(root: string, path: ResolvedPath): ContainmentProblem | undefined {
  if (path.problem !== undefined)
    return { path: path.given, why: 'unresolved', reason: `${path.given} cannot be checked: ${path.problem}` };
  const location = path.real ?? lexicalPath(root, path.given);
  if (relativeInside(root, location) !== undefined) return undefined;
  const where = location !== lexicalPath(root, path.given) ? ` (it leads to ${location})` : '';
  return { path: path.given, why: 'outside', reason: `${path.given} is outside the workspace ${root}${where}` };
}

function segments(path: string): string[] | undefined {
  return resolveSegments([], path.split('/'));
}

function resolveSegments(stack: string[], parts: readonly string[]): string[] | undefined {
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return undefined;
      stack.pop();
    } else stack.push(part);
  }
  return stack;
}
