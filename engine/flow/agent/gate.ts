import { join } from 'node:path';
import { lastLines } from '../../execution/index.js';
import { errorMessage, NeoError } from '../../util/errors.js';
import { environmentRedactor } from '../../util/redact.js';
import type { ExecutionOutcome } from '../core/execution.js';
import type { AgentSettings, GateSpec } from '../core/plan.js';
import type { StepError } from '../core/state.js';
import { processLimitNote, runCommand } from '../runtime/command.js';
import type { RunSite } from '../runtime/confine.js';
import {
  changedPaths,
  dependenciesChanged,
  GateTrees,
  gateUnitDir,
  ProtectedBase,
  trustedDependencies,
  type Snapshot,
} from '../workspace/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import type { GateRun } from './driver.js';
import { baseFloor, gateRunners, judgeRun } from './gate-report.js';
import { defined } from '../../util/defined.js';

/** Lines of a failing check's output that go back to the agent. */
export const GATE_TAIL_LINES = 60;
/** …and at most this many characters of them (the end kept). */
export const GATE_TAIL_CHARS = 8 * 1024;

type Outcome = Omit<ExecutionOutcome, 'exec'>;

/** Where an agent step's gate runs: the step's folder, its environment and the run's confinement. */
export interface GateSite {
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
  run: RunSite;
}

/** One gate run, and the snapshot of the workspace it judged. */
type JudgedRun = GateRun & { judged?: Snapshot };

/**
 * An agent step's gate, from before its agent starts to its verdict. Every run judges a fresh
 * tree (workspace/gate-tree.ts) the agent cannot reach, so what the gate writes never becomes
 * part of the step's change, and what the agent does to a protected path or a dependency folder
 * cannot change the verdict. When the step settles (its sessions stopped, their processes gone),
 * a success stands only for a tree a passing gate judged: a workspace changed since (by a job
 * the agent left running) is judged again. A record that cannot be trusted (a dependency folder
 * the agent changed, a tampered original) stops the step with its own code through `refuse`.
 */
export class StepGate {
  readonly #trees: GateTrees | undefined;
  readonly #protected: ProtectedBase | undefined;
  readonly #site: GateSite;
  readonly #refuse: (error: StepError) => void;
  readonly #redact: (text: string) => string;
  #judged: Snapshot | undefined;
  #refused: StepError | undefined;
  /** How many tests the step's base ran (its `baseline` run, by the runner's own summary): no later run may count fewer. */
  #floor: number | undefined;

  private constructor(
    trees: GateTrees | undefined,
    guarded: ProtectedBase | undefined,
    site: GateSite,
    refuse: (error: StepError) => void,
  ) {
    this.#trees = trees;
    this.#protected = guarded;
    this.#site = site;
    this.#refuse = refuse;
    this.#redact = environmentRedactor({ ...process.env, ...site.env });
  }

  /** Takes the step's gate baselines (protected originals, dependency stamps) before its agent starts. */
  static async open(options: {
    workspace: WorkspaceRecord;
    home: string;
    runId: string;
    /** The unit (and loop iteration). */
    key: string;
    /** When the unit first started (a resume reads its records back). */
    startedAt: string;
    settings: AgentSettings;
    site: GateSite;
    refuse: (error: StepError) => void;
  }): Promise<StepGate> {
    const { workspace, home, settings, startedAt } = options;
    const dir = gateUnitDir(home, options.runId, options.key);
    const scope = `${options.runId}/${options.key}`;
    const guarded =
      settings.protect === undefined
        ? undefined
        : await ProtectedBase.open({
            root: workspace.root,
            dir: join(dir, 'protected'),
            home,
            scope,
            startedAt,
            globs: settings.protect,
          });
    const trees =
      settings.verify === undefined
        ? undefined
        : await GateTrees.open({
            workspace,
            home,
            dir,
            scope,
            startedAt,
            ...defined({ protected: guarded, trusted: await trustedDependencies(home, options.runId) }),
          });
    return new StepGate(trees, guarded, options.site, options.refuse);
  }

  /**
   * Runs the gate once (and once more when the flake check is on and the first run failed).
   * `base`: this run judges the step's base (`baseline`), whose runner's counts become the floor.
   * Never throws: a refusal stops the step and reads as a failed run.
   */
  async run(gate: GateSpec, options: { base?: boolean } = {}): Promise<GateRun> {
    try {
      const first = await this.#once(gate, options);
      let result = first;
      if (!first.passed && gate.flakeCheck && !this.#site.signal.aborted) {
        const second = await this.#once(gate, options);
        result = second.passed ? { ...second, flaky: true } : second;
      }
      this.#judged = result.passed ? result.judged : undefined;
      const { judged: _judged, ...run } = result;
      return run;
    } catch (error) {
      this.#judged = undefined;
      const refused = stepErrorOf(error);
      this.#refused = refused;
      this.#refuse(refused);
      return { passed: false, exitCode: undefined, tail: refused.message, timedOut: false, durationMs: 0 };
    }
  }

  /**
   * The step's verdict once it settled: a refusal as it is; a success judged again when the
   * workspace is not the tree its passing gate judged; then the protected paths' verdict.
   */
  async verdict(outcome: Outcome, settings: AgentSettings): Promise<Outcome> {
    let judged = outcome;
    if (this.#refused !== undefined)
      judged = { status: 'failed', verdict: 'failed', outputs: outcome.outputs, error: this.#refused };
    else if (outcome.status === 'succeeded' && settings.verify !== undefined && this.#trees !== undefined)
      judged = await this.#finalTree(outcome, settings.verify, this.#trees);
    return this.#protected === undefined ? judged : protectedVerdict(judged, this.#protected, settings);
  }

  async #once(gate: GateSpec, options: { exact?: boolean; base?: boolean } = {}): Promise<JudgedRun> {
    if (this.#trees === undefined) throw new Error('a gate ran for a step without `verify`');
    const setting = gate.sandbox ?? { kind: 'none' as const, network: true, source: 'default' };
    const edited = this.#protected === undefined ? [] : await this.#protected.changes();
    const tree = await this.#trees.fresh({
      confined: setting.kind !== 'none',
      cwd: this.#site.cwd,
      ...defined({ exact: options.exact }),
    });
    try {
      // Read from the fresh tree on the host, before anything of the gate's runs in it.
      const runners = await gateRunners(gate.run, tree.hostCwd);
      const result = await runCommand({
        command: gate.run,
        cwd: tree.cwd,
        env: this.#site.env,
        signal: this.#site.signal,
        sandbox: { setting, site: this.#site.run, tree: tree.dir, binds: tree.binds },
        ...defined({ timeoutMs: gate.timeoutMs }),
      });
      const restored =
        edited.length === 0
          ? ''
          : `neo: protected paths were checked as they were before your change (edits to them do not count): ${edited.join(', ')}\n`;
      const limited = processLimitNote(result, setting);
      const exited = result.exitCode === 0 && !result.timedOut && limited === undefined;
      if (options.base === true) this.#floor = baseFloor(runners, result.all);
      // A recognised runner passes on its own summary, not on the exit code alone.
      const report = exited
        ? judgeRun(runners, result.all, options.base === true ? undefined : this.#floor)
        : undefined;
      const unreported = report?.ok === false ? report.unreported : undefined;
      const notes =
        (limited === undefined ? '' : `\nneo: the check ${limited}`) +
        (unreported === undefined ? '' : `\nneo: not a pass: ${unreported}`);
      return {
        passed: exited && unreported === undefined,
        exitCode: result.exitCode,
        tail: this.#tail(result.spawnError ?? `${restored}${lastLines(result.all, GATE_TAIL_LINES)}${notes}`),
        timedOut: result.timedOut,
        ...defined({ unreported }),
        durationMs: result.durationMs,
        judged: tree.judged,
      };
    } finally {
      await tree.dispose();
    }
  }

  /** What goes back to the agent's model and into the record: secrets redacted, then capped (a cut never splits a secret). */
  #tail(text: string): string {
    const redacted = this.#redact(text);
    return redacted.length <= GATE_TAIL_CHARS ? redacted : `…${redacted.slice(-GATE_TAIL_CHARS)}`;
  }

  /** A success stands for the final tree only if a passing gate judged that very tree. */
  async #finalTree(outcome: Outcome, gate: GateSpec, trees: GateTrees): Promise<Outcome> {
    try {
      const moved = await trees.dependencyChanges();
      if (moved.length > 0) return failedWith(outcome, stepErrorOf(dependenciesChanged(moved)));
      // Every file hashed: no stat is trusted for the verdict that counts.
      const now = await trees.snapshot({ exact: true });
      if (now.id === this.#judged?.id) return outcome;
      const changed = this.#judged === undefined ? [] : changedPaths(this.#judged, now);
      const rerun = await this.#once(gate, { exact: true });
      const previous = (outcome.outputs.gate ?? {}) as Record<string, unknown>;
      const gateOut = {
        ...previous,
        passed: rerun.passed,
        exitCode: rerun.exitCode ?? null,
        tail: rerun.tail,
        ...defined({ unreported: rerun.unreported }),
        rejudged: true,
        ...(rerun.timedOut ? { timedOut: true } : {}),
      };
      if (rerun.passed) {
        this.#judged = rerun.judged;
        return { ...outcome, outputs: { ...outcome.outputs, gate: gateOut } };
      }
      const shown = changed.slice(0, 10).join(', ') + (changed.length > 10 ? ', …' : '');
      const how = rerun.timedOut
        ? 'ran past its timeout'
        : (rerun.unreported?.replace(/^exit 0/, 'exited 0') ?? `exited ${rerun.exitCode ?? 'on a signal'}`);
      return failedWith(
        { ...outcome, outputs: { ...outcome.outputs, gate: gateOut } },
        {
          code: 'FLOW_GATE_FAILED',
          message: `the workspace changed after the gate passed${shown === '' ? '' : ` (${shown})`}, and the check \`${gate.run}\` on the final tree fails: it ${how}`,
          hint: 'something the agent left running (a background job) or another process changed the workspace after its gate passed; a success is only ever reported for a tree a gate judged',
        },
      );
    } catch (error) {
      return failedWith(outcome, stepErrorOf(error));
    }
  }
}

/**
 * An agent step that changed a protected path: reported in its outputs, and — unless the step
 * allows it — failed with FLOW_PROTECTED_EDIT naming the paths, whatever else it achieved (the
 * gate already judged the originals).
 */
async function protectedVerdict(outcome: Outcome, base: ProtectedBase, settings: AgentSettings): Promise<Outcome> {
  const edited = await base.changes();
  if (edited.length === 0) return outcome;
  const outputs = { ...outcome.outputs, protectedEdits: edited };
  if (settings.allowProtectedEdits) return { ...outcome, outputs };
  const shown = edited.slice(0, 10).join(', ') + (edited.length > 10 ? ', …' : '');
  const gate = outcome.error === undefined ? '' : ` (and: ${outcome.error.message})`;
  return {
    status: 'failed',
    verdict: 'protected-edit',
    outputs: { ...outputs, verdict: 'protected-edit' },
    error: {
      code: 'FLOW_PROTECTED_EDIT',
      message: `the agent changed protected path${edited.length === 1 ? '' : 's'} ${shown}${gate}`,
      hint: 'the step protects these paths (`protect:`); its gate judged the originals. Fix the code, not the check — or set `allowProtectedEdits: true` on the step',
    },
  };
}

function failedWith(outcome: Outcome, error: StepError): Outcome {
  return { status: 'failed', verdict: 'failed', outputs: { ...outcome.outputs, verdict: 'failed' }, error };
}

function stepErrorOf(error: unknown): StepError {
  if (error instanceof NeoError) return { code: error.code, message: error.message, ...defined({ hint: error.hint }) };
  return { code: 'FLOW_GATE_TREE', message: `the gate's tree could not be made: ${errorMessage(error)}` };
}
