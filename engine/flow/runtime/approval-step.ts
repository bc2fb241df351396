/**
 * An approval step's execution: it waits for a person's answer (approvals.ts: a file another
 * process leaves, or the terminal prompt) and turns it into the step's outcome — the decision as
 * its verdict, who answered in its outputs, a decision marked `fail` as a failed step. With
 * `--yes` it picks the first decision that does not fail. It never approves itself: no answer by
 * the step's timeout fails it `unanswered`.
 */
import type { ExecutionOutcome, ExecutionProgress, ExecutionSpec } from '../core/execution.js';
import type { PlanStep } from '../core/plan.js';
import { unitKey, type StepError } from '../core/state.js';
import { defined } from '../../util/defined.js';
import { askingOf, reopenApproval, takeApproval, waitForApproval } from './approvals.js';
import type { RunStore } from '../store/run-store.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import type { ApprovalPrompter } from './approvals.js';
import { memorySite, noteApprovalRejected } from './memory-hook.js';

/** What an approval step needs of the run (a part of the executor's deps). */
export interface ApprovalDeps {
  home: string;
  runId: string;
  workspace: WorkspaceRecord;
  store: RunStore;
  yes: boolean;
  prompter?: ApprovalPrompter;
  progress(update: ExecutionProgress): void;
  /** When the unit's attempt first started (keys the memory's record of a rejection). */
  startedAt(spec: ExecutionSpec): string | undefined;
}

export async function approvalStep(
  spec: ExecutionSpec,
  step: PlanStep,
  signal: AbortSignal,
  deps: ApprovalDeps,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  const decisions = step.approval!.decisions;
  const prompt = spec.prompt ?? step.approval!.prompt;
  if (deps.yes) {
    const pick = decisions.find((d) => !d.fail) ?? decisions[0]!;
    return {
      status: 'succeeded',
      verdict: pick.id,
      outputs: { decision: pick.id, by: '--yes', preapproved: true, note: 'pre-approved with --yes' },
    };
  }
  const key = unitKey(spec.step, spec.item);
  // The run goes quiet here, and whoever answers looks at it first: its state is on disk before it says so.
  await deps.store.flush();
  deps.progress({
    exec: spec.exec,
    step: spec.step,
    note: `waiting for approval: neo flow approve ${deps.runId} ${key} --decision ${decisions.map((d) => d.id).join('|')}`,
  });
  // A retry or a loop asks the same key again: an answer left for an earlier asking (still there
  // when this process followed it, or when a kill came between the two) is no answer to this one.
  const asking = askingOf(spec);
  const left = await takeApproval(deps.home, deps.runId, key);
  if (left?.asking !== undefined && left.asking !== asking) await reopenApproval(deps.home, deps.runId, key);
  const answer = await waitForApproval({
    home: deps.home,
    key,
    asking,
    ask: { runId: deps.runId, step: key, prompt, decisions, asking },
    signal,
    ...defined({ prompter: deps.prompter }),
  });
  if (answer === undefined) {
    const reason = signal.reason as Partial<StepError> | undefined;
    if (reason?.code === 'FLOW_STEP_TIMEOUT')
      return {
        status: 'failed',
        verdict: 'unanswered',
        outputs: {},
        error: {
          code: 'FLOW_APPROVAL_TIMEOUT',
          message: `no answer to \`${prompt}\` in time; an approval never approves itself`,
        },
      };
    return {
      status: 'failed',
      outputs: {},
      error: { code: 'FLOW_INTERRUPTED', message: 'interrupted while waiting for approval' },
    };
  }
  const decision = decisions.find((d) => d.id === answer.decision);
  const outputs = {
    decision: answer.decision,
    by: answer.by,
    ...defined({ note: answer.note }),
  };
  if (decision === undefined)
    return {
      status: 'failed',
      outputs,
      error: {
        code: 'FLOW_APPROVAL_INVALID',
        message: `\`${answer.decision}\` is not a decision of this approval (${decisions.map((d) => d.id).join(', ')})`,
      },
    };
  if (decision.fail) {
    await noteApprovalRejected(memorySite(spec, deps), answer, prompt);
    return {
      status: 'failed',
      verdict: decision.id,
      outputs,
      error: {
        code: 'FLOW_APPROVAL_REJECTED',
        message: `${answer.by} chose \`${decision.id}\`${answer.note ? `: ${answer.note}` : ''}`,
      },
    };
  }
  return { status: 'succeeded', verdict: decision.id, outputs };
}
