/**
 * The flow's one seam to the repository's memory (engine/memory): the decisions neo itself saw
 * during a run — a gate refusing a change the agent called done, a step's accepted change, a
 * person rejecting an approval, a protected path changed or an escape — and the memory blocks a
 * step's brief asks for. Never the agent's say-so: every decision here is written from a verdict
 * neo computed. Nothing here throws or holds a run up: memory loads lazily, and a write that fails
 * is dropped (engine/memory/run-memory.ts).
 */
import type { GateRun, SessionPort } from '../agent/driver.js';
import type { StepDiff } from '../agent/diff-fold.js';
import type { ExecutionOutcome, ExecutionSpec } from '../core/execution.js';
import { unitKey } from '../core/state.js';
import type { AgentSettings } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { handoffWritten } from './handoff-hook.js';
import type { SandboxBind } from '../../execution/index.js';
import { CONFINED_MEMORY_DIR, memoryDir, memoryOff, repositoryRoot } from '../../memory/paths/index.js';

type Outcome = Omit<ExecutionOutcome, 'exec'>;

/** Where a step's decisions go: the run, the step, and the repository its workspace came from. */
export interface MemorySite {
  home: string;
  runId: string;
  step: string;
  attempt: number;
  workspace: WorkspaceRecord;
  /** The occurrence of a decision of `kind`, the `index`th of its kind in this execution (see DecisionInput). */
  occurrence(kind: string, index?: number): string;
}

/**
 * Where an execution's decisions are remembered: its run, its unit, the run's repository. Its
 * occurrences are keyed by when the unit's attempt first started (kept when an interrupted
 * execution is resumed, new when a failed step is tried afresh), the attempt and the iteration:
 * a resumed execution that meets the same moment again records nothing new.
 */
export function memorySite(
  spec: Pick<ExecutionSpec, 'step' | 'item' | 'attempt' | 'iteration' | 'exec'>,
  run: {
    home: string;
    runId: string;
    workspace: WorkspaceRecord;
    startedAt(spec: ExecutionSpec): string | undefined;
  },
): MemorySite {
  const started = run.startedAt(spec as ExecutionSpec) ?? spec.exec;
  return {
    home: run.home,
    runId: run.runId,
    step: unitKey(spec.step, spec.item),
    attempt: spec.attempt,
    workspace: run.workspace,
    occurrence: (kind, index = 0) => `${started}|a${spec.attempt}|i${spec.iteration}|${kind}|${index}`,
  };
}

const memory = () => import('../../memory/index.js');

/** The user's repository, whatever the isolation: a decision belongs to it, not to a throwaway worktree. */
const repoOf = (workspace: WorkspaceRecord) => workspace.repo ?? workspace.projectDir;

function who(settings: AgentSettings) {
  return {
    ...(settings.persona === undefined ? {} : { persona: settings.persona }),
    ...(settings.backend === undefined ? {} : { backend: settings.backend }),
    ...(typeof settings.model === 'string' ? { model: settings.model } : {}),
  };
}

const diffOf = (diff: StepDiff | undefined) => ({
  files: (diff?.files ?? []).map((f) => f.path),
  ...(diff === undefined || diff.unified === '' ? {} : { diff: diff.unified }),
});

/**
 * The step's session port, opening the repository's memory (if it has one) once its first start
 * has returned: the agent is running and neo waits for its turn. Otherwise the open falls where
 * its first user does — the hand-off's timer, a second after the run's start, or the step's
 * decision after the agent's end — and on a short turn that is the stretch between the agent's
 * end and the step's, which the whole run waits through.
 */
export function openingMemory(sessions: SessionPort, site: MemorySite): SessionPort {
  let opened = false;
  return {
    execute: async (input, caller, options) => {
      const result = await sessions.execute(input, caller, options);
      if (input.op === 'start' && !opened && !memoryOff()) {
        opened = true;
        // After the start's own continuation has run: the drive goes on to wait for the turn first.
        setImmediate(
          () =>
            void memory().then(
              (m) => m.openRunMemory(site.home, repoOf(site.workspace)),
              () => undefined,
            ),
        );
      }
      return result;
    },
    setScopeConstraints: (scope, constraints) => sessions.setScopeConstraints(scope, constraints),
    onSessionEvent: (listener) => sessions.onSessionEvent(listener),
    releaseAllOwnedBy: (scope) => sessions.releaseAllOwnedBy(scope),
  };
}

/** A gate run that refused what the agent called done: what it tried and what the check printed. */
export async function noteGateRefusal(
  site: MemorySite,
  settings: AgentSettings,
  run: GateRun,
  diff: () => Promise<StepDiff>,
  index: number,
): Promise<void> {
  if (run.passed) return;
  try {
    const change = await diff().catch(() => undefined);
    const how = run.timedOut ? 'ran past its timeout' : `exited ${run.exitCode ?? 'on a signal'}`;
    (await memory()).noteDecision(site.home, repoOf(site.workspace), {
      kind: 'gate-refused',
      source: 'neo',
      runId: site.runId,
      step: site.step,
      attempt: site.attempt,
      occurrence: site.occurrence('gate-run', index),
      ...who(settings),
      brief: settings.brief,
      verdict: 'refused',
      evidence: run.tail,
      reason: `the check \`${settings.verify?.run ?? '?'}\` ${how}`,
      ...diffOf(change),
    });
  } catch {
    // Memory is a record beside the run, never a reason for it to fail.
  }
}

/** An agent step's end: an accepted change, a protected path changed, or an escape. */
export async function noteStepOutcome(site: MemorySite, settings: AgentSettings, outcome: Outcome): Promise<void> {
  // A gate judging the final tree again (the workspace changed after it passed) is a refusal the
  // driver's gate runs never saw.
  const rejudged = (outcome.outputs.gate as { rejudged?: boolean } | undefined)?.rejudged === true;
  const kind =
    outcome.status === 'succeeded'
      ? 'step-succeeded'
      : outcome.verdict === 'protected-edit'
        ? 'protected-edit'
        : outcome.verdict === 'escaped'
          ? 'escape'
          : rejudged && outcome.error?.code === 'FLOW_GATE_FAILED'
            ? 'gate-refused'
            : undefined;
  if (kind === undefined) return;
  try {
    const diff = outcome.outputs.diff as StepDiff | { error: string } | undefined;
    const gate = outcome.outputs.gate as { tail?: string } | undefined;
    (await memory()).noteDecision(site.home, repoOf(site.workspace), {
      kind,
      source: 'neo',
      runId: site.runId,
      step: site.step,
      attempt: site.attempt,
      occurrence: site.occurrence(`end:${kind}`),
      ...who(settings),
      brief: settings.brief,
      verdict: kind === 'step-succeeded' ? (outcome.verdict ?? 'success') : kind === 'gate-refused' ? 'refused' : kind,
      evidence: outcome.error?.message ?? gate?.tail ?? '',
      reason:
        kind === 'step-succeeded'
          ? settings.verify === undefined
            ? 'the step succeeded (no gate)'
            : `the check \`${settings.verify.run}\` passed on the final tree`
          : (outcome.error?.code ?? kind),
      ...diffOf(diff !== undefined && 'files' in diff ? diff : undefined),
    });
  } catch {
    // As above.
  }
}

/** A person's rejection of an approval, with their reason. */
export async function noteApprovalRejected(
  site: MemorySite,
  answer: { decision: string; by: string; note?: string },
  prompt: string,
): Promise<void> {
  try {
    (await memory()).noteDecision(site.home, repoOf(site.workspace), {
      kind: 'approval-rejected',
      source: 'neo',
      runId: site.runId,
      step: site.step,
      attempt: site.attempt,
      occurrence: site.occurrence('answer'),
      brief: prompt,
      verdict: answer.decision,
      evidence: answer.note ?? '',
      reason: `${answer.by} chose \`${answer.decision}\`${answer.note === undefined ? '' : `: ${answer.note}`}`,
    });
  } catch {
    // As above.
  }
}

/**
 * The brief with the memory blocks the step asks for (`memory: { state, decisions, map }`) at its end;
 * `asked` is the step's own brief (the files it names are the ones it will touch).
 */
export async function briefWithMemory(
  site: MemorySite,
  brief: string,
  asked: string,
  settings: AgentSettings,
  workdir: string,
): Promise<string> {
  const asks = settings.memory;
  if (asks === undefined) return brief;
  try {
    const mem = await memory();
    const repo = repoOf(site.workspace);
    // The run's hand-off as neo wrote it after the steps before this one.
    if (asks.state === true) await handoffWritten(site.runId);
    const blocks = [
      asks.state === true ? mem.handoffBriefBlock(site.home, repo, site.runId) : '',
      asks.decisions === true
        ? mem.decisionBriefBlock(site.home, repo, { brief: asked, runId: site.runId, workdir })
        : '',
      asks.map === undefined
        ? ''
        : await mem.mapBriefBlock(site.home, repo, {
            brief: asked,
            runId: site.runId,
            tree: site.workspace.root,
            workdir,
            tokens: asks.map,
          }),
    ].filter((b) => b !== '');
    return blocks.length === 0 ? brief : [brief, ...blocks].join('\n\n');
  } catch {
    return brief;
  }
}

/**
 * The run's repository memory folder for a sandboxed agent step, read-only at CONFINED_MEMORY_DIR:
 * a `neo memory mcp` its CLI starts there reads that repository's decisions, graph and hand-offs,
 * and nothing else of NEO_HOME (which stays hidden). Skipped when the repository has no memory yet.
 */
export function memoryBind(home: string, workspace: WorkspaceRecord): SandboxBind[] {
  if (memoryOff()) return [];
  return [{ path: memoryDir(home, repositoryRoot(repoOf(workspace))), at: CONFINED_MEMORY_DIR, optional: true }];
}
