/**
 * A worker's side of a run whose workspace travels through a git remote. The worker never uses
 * the enqueuer's folders: it fetches the run's refs into a clone of its own
 * (`NEO_HOME/remote-runs/<run>`), whose work tree is the base commit with the plan the enqueuer
 * checked (definitions are read there, so nothing a step wrote is ever loaded as a definition),
 * and the run's workspace is a worktree of that clone starting at the last recorded step's
 * result — or the base — never at a dead worker's half-edited tree.
 *
 * After each finished step its workspace becomes a commit (a private index, so the step's own
 * git state is untouched), pushed to the remote before the step's outcome is recorded (under
 * `refs/neo/runs/<run>/pending/<commit>`), so the record never names a commit the remote lacks;
 * then `steps/<key>` (created once: the first recorded wins) and the moving `head` point at the
 * recorded commit. Ref names come from the run's id and the step's key — neo's record — never
 * from the workspace. The clone, its git dir and the index live in NEO_HOME, which every sandbox
 * hides (engine/execution/sandbox-confine.ts).
 */
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join, relative, sep } from 'node:path';
import { GitRepo, runGit } from '../../../execution/index.js';
import { NeoError } from '../../../util/errors.js';
import { remoteCloneDir } from '../../workspace/index.js';
import { mkdirPrivate } from '../../../util/private-store.js';
import type { WorkspaceRecord } from '../../store/run-files.js';
import type { RemoteWorkspace } from '../engine.js';
import type { RemoteResult } from './run-table.js';
import type { StepResults } from './steps.js';
import { fetchRun, listRemote, pushRefs, redactRemote, runRefs, type RefUpdate } from './remote-git.js';

/** Calls to the remote are tried this many times (1 s, 2 s, 4 s apart) before the run or step fails. */
const TRIES = 4;
const AUTHOR = { name: 'neo', email: 'neo@localhost' };

export class RemoteRun implements StepResults {
  #head: string;
  #chain: Promise<void> = Promise.resolve();
  #workspace: WorkspaceRecord | undefined;

  private constructor(
    private readonly runId: string,
    private readonly spec: RemoteWorkspace,
    private readonly dir: string,
    private readonly clone: GitRepo,
    /** Where the run's workspace starts: the last recorded step's result, or the base. */
    readonly start: string,
  ) {
    this.#head = start;
  }

  /** The folder the run is started from in the clone (definitions are looked up from it). */
  get cwd(): string {
    return join(this.dir, ...this.spec.cwd.split('/'));
  }

  get planFile(): string {
    return join(this.dir, ...this.spec.plan.split('/'));
  }

  /**
   * Fetches the run into a fresh clone (an earlier attempt's clone and worktree on this home go
   * first) and puts the remote's refs in order with the record: each recorded step's ref, and
   * `head` at the last recorded result. A remote that cannot be fetched is ENGINE_REMOTE_UNREACHABLE.
   */
  static async open(options: {
    home: string;
    runId: string;
    spec: RemoteWorkspace;
    recorded: ReadonlyArray<{ key: string; commit: string }>;
  }): Promise<RemoteRun> {
    const { home, runId, spec } = options;
    const dir = remoteCloneDir(home, runId);
    await rm(dir, { recursive: true, force: true });
    await rm(join(home, 'worktrees', runId), { recursive: true, force: true });
    await rm(`${dir}.index`, { force: true });
    await mkdirPrivate(join(home, 'remote-runs'));
    const init = await runGit(join(home, 'remote-runs'), ['init', '--quiet', dir]);
    if (!init.ok) throw new NeoError('GIT_FAILED', `git init ${dir} failed: ${init.stderr}`);
    const clone = (await GitRepo.discover(dir))!;
    await tried(() => fetchRun(clone, spec.url, runId));
    const start = options.recorded.at(-1)?.commit ?? spec.base;
    for (const commit of new Set([spec.base, start]))
      if (!(await clone.run(['cat-file', '-e', `${commit}^{commit}`])).ok)
        throw new NeoError(
          'ENGINE_REMOTE_MISSING',
          `commit ${commit.slice(0, 12)} of run ${runId} is not on its remote ${redactRemote(spec.url)}`,
          { hint: "the run's refs (refs/neo/runs/<run>/*) were removed from the remote: the run cannot go on" },
        );
    await clone.output(['checkout', '--quiet', '--detach', spec.base]);
    const plan = join(dir, ...spec.plan.split('/'));
    const rel = relative(dir, plan);
    if (rel.startsWith(`..${sep}`) || rel === '..' || rel === '')
      throw new NeoError('ENGINE_REMOTE_PLAN_OUTSIDE', `the run's plan path \`${spec.plan}\` leads out of its clone`);
    await mkdir(dirname(plan), { recursive: true });
    await writeFile(plan, spec.planText);
    const run = new RemoteRun(runId, spec, dir, clone, start);
    await run.#repair(options.recorded);
    return run;
  }

  /** The run's workspace, as the runtime prepared it (a worktree of the clone). */
  attach(workspace: WorkspaceRecord | undefined): void {
    this.#workspace = workspace;
  }

  settle(key: string, record: (commit: string) => Promise<{ commit?: string }>): Promise<void> {
    const refs = runRefs(this.runId);
    const next = this.#chain.then(async () => {
      const commit = await this.#snapshot(key);
      const pending = refs.pending(commit);
      await this.#push([{ ref: pending, commit, mode: 'move' }]);
      const recorded = (await record(commit)).commit ?? commit;
      await this.#push([
        { ref: refs.step(key), commit: recorded, mode: 'create' },
        { ref: refs.head, commit: recorded, mode: 'move' },
        { ref: pending, mode: 'move' },
      ]);
      if (recorded === commit) this.#head = commit;
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** The run's result on its remote: `head` at the last step's result (pending refs of dead attempts removed). */
  async finish(): Promise<RemoteResult> {
    await this.#chain;
    const refs = runRefs(this.runId);
    const left = await tried(() => listRemote(this.clone, this.spec.url, `${refs.root}/pending`));
    await this.#push([
      { ref: refs.head, commit: this.#head, mode: 'move' },
      ...[...left.keys()].map((ref): RefUpdate => ({ ref, mode: 'move' })),
    ]);
    return { remote: redactRemote(this.spec.url), ref: refs.head, commit: this.#head };
  }

  /** The workspace's tree now, as a commit on the last one (the same commit when nothing changed). */
  async #snapshot(key: string): Promise<string> {
    const ws = this.#workspace;
    if (ws?.gitDir === undefined || ws.commonDir === undefined)
      throw new NeoError('FLOW_EXECUTOR_ERROR', `run ${this.runId}: no worktree to take step ${key}'s result from`);
    const repo = GitRepo.pinned({ top: await realpath(ws.root), gitDir: ws.gitDir, commonDir: ws.commonDir });
    const index = `${this.dir}.index`;
    await rm(index, { force: true });
    const env = { GIT_INDEX_FILE: index };
    await repo.output(['read-tree', this.#head], { env });
    await repo.output(['add', '--all', '--', ':/'], { env });
    const tree = await repo.output(['write-tree'], { env });
    if (tree === (await repo.output(['rev-parse', `${this.#head}^{tree}`]))) return this.#head;
    const who = {
      GIT_AUTHOR_NAME: AUTHOR.name,
      GIT_AUTHOR_EMAIL: AUTHOR.email,
      GIT_COMMITTER_NAME: AUTHOR.name,
      GIT_COMMITTER_EMAIL: AUTHOR.email,
    };
    return repo.output(['commit-tree', tree, '-p', this.#head, '-m', `neo: ${key} of run ${this.runId}`], {
      env: { ...env, ...who },
    });
  }

  /** A takeover: the recorded steps' refs the dead worker did not push, and `head` at the start. */
  async #repair(recorded: ReadonlyArray<{ key: string; commit: string }>): Promise<void> {
    const refs = runRefs(this.runId);
    const there =
      recorded.length === 0 ? new Map() : await tried(() => listRemote(this.clone, this.spec.url, refs.root));
    await this.#push([
      ...recorded
        .filter((r) => !there.has(refs.step(r.key)))
        .map((r): RefUpdate => ({ ref: refs.step(r.key), commit: r.commit, mode: 'create' })),
      { ref: refs.head, commit: this.start, mode: 'move' },
    ]);
  }

  #push(updates: RefUpdate[]): Promise<Set<string>> {
    return tried(() => pushRefs(this.clone, this.spec.url, updates));
  }
}

/** `work`, tried again while the remote is unreachable (a blip), at most {@link TRIES} times. */
async function tried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof NeoError) || error.code !== 'ENGINE_REMOTE_UNREACHABLE' || attempt >= TRIES) throw error;
      await sleep(1_000 * 2 ** (attempt - 1));
    }
  }
}
