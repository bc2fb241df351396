/**
 * The enqueuing side of a run whose workspace travels through a git remote: what of the
 * enqueuer's project is the run's base, and its push. The base is a commit, as for a local
 * run's worktree: `workspace.base` when the plan names one, else HEAD — uncommitted changes are
 * not in it (they are reported). The plan travels as the text the enqueuer checked, with its
 * path in the repository, so an edited plan runs as checked; the definitions in `.neo/` come
 * with the repository at the base commit.
 */
import { realpath } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { GitRepo } from '../../../execution/index.js';
import { UsageError } from '../../../util/errors.js';
import type { RemoteWorkspace } from '../engine.js';
import { listRemote, normalizeRemote, probeRemote, pushRefs, redactRemote, runRefs } from './remote-git.js';

export interface PreparedRemote {
  spec: RemoteWorkspace;
  repo: GitRepo;
  /** The project has changes the base leaves out. */
  dirty: boolean;
}

/** Checks the project and the remote (ENGINE_REMOTE_UNREACHABLE when it does not answer as a git repository). */
export async function prepareRemote(options: {
  remote: string;
  cwd: string;
  planFile: string;
  projectDir: string;
  base?: string;
}): Promise<PreparedRemote> {
  const url = normalizeRemote(options.remote, options.cwd);
  const found = await GitRepo.discoverHead(options.projectDir);
  if (found === undefined || found.head === undefined)
    throw new UsageError(
      'FLOW_WORKSPACE_NOT_GIT',
      `${options.projectDir} is not in a git repository with a commit, so it has no base to push`,
      { hint: 'a run with --remote starts from a commit: `git init`, commit the project, then enqueue' },
    );
  const { repo } = found;
  const top = repo.location.top;
  const plan = inside(top, await realpath(options.planFile));
  if (plan === undefined || inside(top, await realpath(options.projectDir)) === undefined)
    throw new UsageError(
      'ENGINE_REMOTE_PLAN_OUTSIDE',
      `${options.planFile} is not inside the repository ${top}, and a run with --remote ships only the repository`,
      { hint: 'keep the plan (and its workspace.path) inside the repository' },
    );
  const cwd = inside(top, await realpath(options.cwd)) ?? dirname(plan);
  const baseRef = options.base ?? 'HEAD';
  const base =
    options.base === undefined
      ? found.head
      : await repo.output(['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]).catch(() => '');
  if (base === '')
    throw new UsageError('FLOW_WORKSPACE_BASE', `workspace.base \`${baseRef}\` is not a commit in ${top}`, {
      hint: 'name a branch, tag or commit that exists',
    });
  const status = await repo.output(['status', '--porcelain', '--untracked-files=normal']).catch(() => '');
  await probeRemote(url, top);
  return {
    spec: { url, base, plan, planText: await readFile(options.planFile, 'utf8'), cwd: cwd === '' ? '.' : cwd },
    repo,
    dirty: status !== '',
  };
}

/**
 * Pushes the base to `refs/neo/runs/<run>/base`, only where that ref does not exist: a run's base
 * is set once. The ref holding another commit already (a run id used on this remote before) is
 * ENGINE_REMOTE_REF_TAKEN.
 */
export async function publishBase(prepared: PreparedRemote, runId: string): Promise<void> {
  const { url, base } = prepared.spec;
  const ref = runRefs(runId).base;
  const refused = await pushRefs(prepared.repo, url, [{ ref, commit: base, mode: 'create' }]);
  if (!refused.has(ref)) return;
  const there = (await listRemote(prepared.repo, url, runRefs(runId).root)).get(ref);
  if (there === base) return;
  throw new UsageError(
    'ENGINE_REMOTE_REF_TAKEN',
    `${ref} on ${redactRemote(url)} already names ${there?.slice(0, 12) ?? 'another commit'}, not this run's base ${base.slice(0, 12)}`,
    { hint: 'the run id was used on this remote before: enqueue with another --run-id' },
  );
}

/** `path` relative to `top` with `/` separators, or undefined when it lies outside. */
function inside(top: string, path: string): string | undefined {
  const rel = relative(top, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) return undefined;
  return rel.split(sep).join('/');
}
