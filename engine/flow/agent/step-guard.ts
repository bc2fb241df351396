import { realpath } from 'node:fs/promises';
import { resolveRealPath } from '../../execution/index.js';
import { askPaths, classifyToolName, isGitPath, lexicalPath, relativeInside } from '../../posture/index.js';
// The diff helpers from their own sub-area: the session service behind session/index.ts is
// loaded only by a flow that starts a session (docs/architecture.md, "Start-up").
import { capUnifiedDiff, workspacePath } from '../../session/diff/index.js';
import type { DiffBaseline, ReadTurnResult, SessionLiveEvent, StartResult, TurnDiff } from '../../session/index.js';
import { errorMessage, NeoError } from '../../util/errors.js';
import type { ExecutionOutcome } from '../core/execution.js';
import type { StepError } from '../core/state.js';
import { GitMetaWatch, OutsideWatch, StepBase, type StepPlace } from '../workspace/index.js';
import { DiffFold, summarize, type StepDiff } from './diff-fold.js';
import type { SessionPort } from './driver.js';

type Outcome = Omit<ExecutionOutcome, 'exec'>;

/** Session events kept per session until it is known to be this step's (a start returns after its first events). */
const MAX_UNCLAIMED_EVENTS = 2000;

/**
 * What every agent step runs inside, whatever its backend and driver: its base and net diff,
 * and the escape check. It watches the step's sessions through the session port it hands the
 * driver: each edit tool call naming a path outside the workspace, and at each turn's end the
 * user's checkout and NEO_HOME's user layer (OutsideWatch), the git metadata of every repository
 * the run touches, whatever the step's posture (GitMetaWatch), and the workspace's `.git` (still
 * the recorded one). An escape aborts the step with
 * FLOW_ESCAPE naming the paths, and no outcome that escaped is ever a success.
 */
export class StepGuard {
  readonly signal: AbortSignal;
  readonly sessions: SessionPort;
  readonly #base: StepBase | undefined;
  readonly #outside: OutsideWatch;
  readonly #git: GitMetaWatch;
  readonly #root: string;
  readonly #cwd: string;
  readonly #editToolNames: readonly string[];
  readonly #controller = new AbortController();
  readonly #ours = new Set<string>();
  readonly #unclaimed = new Map<string, SessionLiveEvent[]>();
  readonly #pending = new Map<string, Promise<string[]>>();
  readonly #escaped = new Set<string>();
  readonly #fold: DiffFold;
  readonly #unsubscribe: () => void;
  #escape: StepError | undefined;
  /** The base, until the step's first session start takes it as its first diff baseline. */
  #handover: DiffBaseline | undefined;

  private constructor(
    init: {
      base: StepBase | undefined;
      outside: OutsideWatch;
      git: GitMetaWatch;
      root: string;
      cwd: string;
      editToolNames: readonly string[];
    },
    sessions: SessionPort,
    signal: AbortSignal,
  ) {
    this.#base = init.base;
    this.#outside = init.outside;
    this.#git = init.git;
    this.#root = init.root;
    this.#cwd = init.cwd;
    this.#editToolNames = init.editToolNames;
    this.#fold = new DiffFold((path) => workspacePath(init.root, lexicalPath(init.cwd, path)));
    // Only a base taken now is the tree as the first start finds it: between here and that start
    // the step runs no process in the workspace (its gate runs judge a fresh tree elsewhere, the
    // briefs and the driver's decisions only read), and the agent does not exist before it. So
    // the session's own snapshot would be this same tree, and taking it earlier hides no write
    // of the agent's. A recorded base (a resume, a retry) is where the unit first started: the
    // session then takes its own.
    this.#handover =
      init.base?.taken === true ? { repo: init.base.repo, store: init.base.store, tree: init.base.tree } : undefined;
    this.signal = AbortSignal.any([signal, this.#controller.signal]);
    this.#unsubscribe = sessions.onSessionEvent((live) => this.#onEvent(live));
    this.sessions = {
      execute: async (input, caller) => {
        const result = await sessions.execute(input, caller, this.#startOptions(input.op));
        if (input.op === 'start') this.#claim((result as StartResult).sessionId);
        if (input.op === 'read-turn' && (result as ReadTurnResult).kind !== 'clarification') await this.#turnEnded();
        return result;
      },
      setScopeConstraints: (scope, constraints) => sessions.setScopeConstraints(scope, constraints),
      onSessionEvent: (listener) => sessions.onSessionEvent(listener),
      releaseAllOwnedBy: (scope) => sessions.releaseAllOwnedBy(scope),
    };
  }

  /**
   * Takes the step's baselines before its agent starts. Throws FLOW_CONTAINMENT_UNAVAILABLE when
   * they cannot be taken: a step whose escapes could not be seen does not run.
   */
  static async open(
    options: StepPlace & {
      cwd: string;
      editToolNames: readonly string[];
      sessions: SessionPort;
      signal: AbortSignal;
      /** The agent runs unconfined: the checkout's folders lent to the workspace are writable through its links. */
      unconfined?: boolean;
    },
  ): Promise<StepGuard> {
    try {
      const [base, outside, git, root, cwd] = await Promise.all([
        StepBase.open(options),
        OutsideWatch.open(options),
        GitMetaWatch.open(options.workspace),
        realpath(options.workspace.root),
        realpath(options.cwd),
      ]);
      return new StepGuard(
        { base, outside, git, root, cwd, editToolNames: options.editToolNames },
        options.sessions,
        options.signal,
      );
    } catch (error) {
      throw new NeoError(
        'FLOW_CONTAINMENT_UNAVAILABLE',
        `could not take the step's baseline in ${options.workspace.root}: ${errorMessage(error)}`,
        { hint: 'an agent step runs only where neo can see what it changes; check the workspace and its git' },
      );
    }
  }

  /** The step's change so far: the net diff from its base in git, else its turns' tool events. */
  async stepDiff(): Promise<StepDiff> {
    if (this.#base === undefined) return this.#fold.result();
    const change = await this.#base.diff();
    const unified = capUnifiedDiff(change.patch, { totalBytes: change.patchBytes });
    return {
      files: change.files,
      summary: summarize(change.files),
      unified: unified.text,
      truncated: unified.truncated,
      source: 'git',
    };
  }

  /** The outcome with the step's diff, failed with FLOW_ESCAPE if anything escaped (checked once more). */
  async settle(outcome: Outcome): Promise<Outcome> {
    await this.#turnEnded();
    let diff: StepDiff | { error: string };
    try {
      diff = await this.stepDiff();
    } catch (error) {
      diff = { error: errorMessage(error) };
    }
    const outputs = { ...outcome.outputs, diff };
    if (this.#escape === undefined) return { ...outcome, outputs };
    return { status: 'failed', verdict: 'escaped', error: this.#escape, outputs: { ...outputs, verdict: 'escaped' } };
  }

  close(): void {
    this.#unsubscribe();
  }

  /** The handed-over base for the step's first start only: a later start finds the tree its sessions changed. */
  #startOptions(op: string): { baseline?: DiffBaseline } | undefined {
    if (op !== 'start' || this.#handover === undefined) return undefined;
    const baseline = this.#handover;
    this.#handover = undefined;
    return { baseline };
  }

  #claim(sessionId: string): void {
    this.#ours.add(sessionId);
    for (const live of this.#unclaimed.get(sessionId) ?? []) this.#onEvent(live);
    this.#unclaimed.delete(sessionId);
  }

  #onEvent(live: SessionLiveEvent): void {
    if (!this.#ours.has(live.sessionId)) {
      const kept = this.#unclaimed.get(live.sessionId) ?? [];
      if (live.event.type === 'released') this.#unclaimed.delete(live.sessionId);
      else if (kept.length < MAX_UNCLAIMED_EVENTS) this.#unclaimed.set(live.sessionId, [...kept, live]);
      return;
    }
    const event = live.event;
    if (event.type === 'tool_use' && classifyToolName(event.name, this.#editToolNames) === 'edit') {
      const paths = event.paths !== undefined && event.paths.length > 0 ? event.paths : askPaths(event.input);
      this.#pending.set(`${live.sessionId}:${event.id}`, this.#outsidePaths(paths));
    } else if (event.type === 'tool_result') {
      const key = `${live.sessionId}:${event.id}`;
      const outside = this.#pending.get(key);
      this.#pending.delete(key);
      // A call that failed (refused by the gate or the CLI) changed nothing.
      if (outside !== undefined && !event.isError)
        void outside.then((paths) => paths.forEach((p) => this.#escaped.add(p)));
    } else if (event.type === 'turn_diff') this.#fold.add(event.diff as TurnDiff);
  }

  /** The paths of an edit that lead outside the workspace (symlinks followed). */
  async #outsidePaths(paths: readonly string[]): Promise<string[]> {
    const resolved = await Promise.all(paths.map((path) => resolveRealPath(this.#cwd, path)));
    return resolved
      .filter((path) => path.real === undefined || relativeInside(this.#root, path.real) === undefined)
      .map((path) => path.real ?? path.given);
  }

  /** At a turn's end: a call that claimed an outside edit without failing, a changed `.git`, anything changed outside. */
  async #turnEnded(): Promise<void> {
    if (this.#escape !== undefined) return;
    // An edit still without a result at the turn's end is taken as done.
    for (const outside of this.#pending.values()) for (const path of await outside) this.#escaped.add(path);
    this.#pending.clear();
    try {
      await this.#base?.repo.verify();
    } catch (error) {
      return this.#fail({
        code: 'FLOW_GIT_DIR_CHANGED',
        message: `the agent redirected the workspace's git: ${errorMessage(error)}`,
      });
    }
    const changed = await this.#outside.changes();
    const git = this.#git.tampered();
    const seen = [...new Set([...changed, ...git])].sort();
    // What only the agent's edit tool reported: unconfined it may lie anywhere (only the checkout
    // and NEO_HOME are watched), in a sandbox it landed in the sandbox's own copy of that folder.
    const reported = [...this.#escaped].filter((path) => !seen.includes(path)).sort();
    if (seen.length === 0 && reported.length === 0) return;
    const where =
      git.length > 0 || [...seen, ...reported].some((path) => isGitPath(relativeInside(this.#root, path) ?? ''))
        ? `outside its workspace ${this.#root} or in its git metadata (git runs the programs named there)`
        : `outside its workspace ${this.#root}`;
    const parts = [
      ...(seen.length === 0 ? [] : [`the agent changed ${countedPaths(seen)} ${where}: ${listed(seen)}`]),
      ...(reported.length === 0
        ? []
        : [
            `${seen.length === 0 ? "the agent's edit tool reported writing" : 'its edit tool also reported writing'} ${countedPaths(reported)}${seen.length === 0 ? ` ${where}` : ''}: ${listed(reported)}`,
          ]),
    ];
    this.#fail({
      code: 'FLOW_ESCAPE',
      message: parts.join('; '),
      hint:
        reported.length === 0
          ? "nothing outside the run's workspace may change while an agent step runs: inspect (and undo) these changes; if you made them yourself meanwhile, resume the run"
          : "an agent step may not write outside its workspace: inspect (and undo) what exists of these (in a sandbox, a write there landed in the sandbox's own copy and is gone); brief the agent to keep its work in the workspace, then resume the run",
    });
  }

  #fail(error: StepError): void {
    this.#escape = error;
    this.#controller.abort(error);
  }
}

function countedPaths(paths: readonly string[]): string {
  return `${paths.length} path${paths.length === 1 ? '' : 's'}`;
}

/** The first ten paths, then an ellipsis. */
function listed(paths: readonly string[]): string {
  return `${paths.slice(0, 10).join(', ')}${paths.length > 10 ? ', …' : ''}`;
}
