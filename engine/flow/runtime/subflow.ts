import type { DefinitionSet } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import type { ExecutionOutcome, ExecutionSpec } from '../core/execution.js';
import type { PlanStep } from '../core/plan.js';
import { unitKey } from '../core/state.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { readCheckedRun } from '../store/checked-run.js';
import { loadRunRecord } from '../store/runs.js';
import type { AgentServices } from './agents.js';
import type { ParentLink } from './drive.js';
import { childRunId } from './ids.js';
import type { DurableRun, RunOutcome, StartOptions } from './options.js';
import { replay } from '../core/reduce.js';
import { initialRunState } from '../core/state.js';
import { defined } from '../../util/defined.js';

/** What a parent run lends its sub-flows. */
export interface SubflowParent {
  options: StartOptions;
  set: DefinitionSet;
  agents: AgentServices;
  workspace: WorkspaceRecord;
  backend?: string;
  /** The parent's run is a durable engine's (dbos): so is the sub-flow's, under its own id. */
  durable?: DurableRun;
}

/**
 * Runs a `flow:` step as its own run (own record, events and inputs) in the parent's
 * workspace, sharing its budget and ledger. The child's id derives from the parent's, the step
 * and the attempt: a resumed parent finds an interrupted child and resumes it, and a child that
 * already finished is not run again: its outcome is the fold of its authenticated events
 * (checked-run.ts), never its snapshot. A child whose files do not check fails the step as
 * STORE_TAMPERED.
 */
export async function runSubflow(
  parent: SubflowParent,
  spec: ExecutionSpec,
  step: PlanStep,
  signal: AbortSignal,
  link: ParentLink,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  const runId = childRunId(link.runId, unitKey(spec.step, spec.item), spec.iteration, spec.attempt);
  const env = {
    home: parent.options.home,
    cwd: parent.options.cwd,
    signal,
    ...defined({ observer: parent.options.observer, prompter: parent.options.prompter, yes: parent.options.yes }),
  };
  const child = {
    set: parent.set,
    agents: parent.agents,
    workspace: parent.workspace,
    link,
    runId,
    ...defined({ backend: parent.backend }),
    parentStep: { id: step.id, ...defined({ sandbox: step.sandbox }) },
  };
  let outcome: Pick<RunOutcome, 'runId' | 'status' | 'reason' | 'state'>;
  try {
    const durable = await parent.durable?.child?.(runId);
    if (durable !== undefined) {
      // The engine's record is the sub-flow's truth (this machine may never have seen it): a
      // finished one is its outcome, an unfinished one is taken over from its recorded events.
      const done = durable.history.findLast((e) => e.type === 'run.finished');
      if (done !== undefined) {
        const state = replay(initialRunState(runId, []), durable.history);
        outcome = { runId, status: state.status, ...defined({ reason: state.reason }), state };
      } else {
        const { startCompiled } = await import('./start-run.js');
        outcome = await startCompiled(
          step.flow!.file,
          parent.set,
          { ...env, planFile: step.flow!.file, inputs: spec.inputs ?? {} },
          { agents: parent.agents, child: { ...child, engine: durable } },
        );
      }
    } else {
      const existing = await loadRunRecord(parent.options.home, runId).catch((error: unknown) => {
        if (error instanceof NeoError && error.code === 'FLOW_RUN_NOT_FOUND') return undefined;
        throw error;
      });
      if (existing?.untrusted !== undefined) throw existing.untrusted;
      const status = existing?.record.status;
      if (status === 'succeeded' || status === 'failed') {
        const { state } = await readCheckedRun(parent.options.home, runId);
        outcome = { runId, status: state.status, ...defined({ reason: state.reason }), state };
      } else if (existing !== undefined) {
        const { resumeChild } = await import('./resume-run.js');
        outcome = await resumeChild({ ...env, runId }, child);
      } else {
        const { startCompiled } = await import('./start-run.js');
        outcome = await startCompiled(
          step.flow!.file,
          parent.set,
          { ...env, planFile: step.flow!.file, inputs: spec.inputs ?? {} },
          { agents: parent.agents, child },
        );
      }
    }
  } catch (error) {
    const code = error instanceof NeoError ? error.code : 'FLOW_SUBFLOW_FAILED';
    return {
      status: 'failed',
      outputs: { runId },
      error: {
        code,
        message: `sub-flow ${step.flow!.file} could not run: ${error instanceof Error ? error.message : String(error)}`,
      },
    };
  }
  const steps: Record<string, unknown> = {};
  for (const [id, s] of outcome.state.steps.entries())
    steps[id] = { status: s.status, verdict: s.verdict ?? null, outputs: s.outputs ?? {} };
  const outputs = { runId, status: outcome.status, steps };
  if (outcome.status === 'succeeded') return { status: 'succeeded', verdict: 'success', outputs };
  if (outcome.status === 'interrupted')
    return { status: 'failed', outputs, error: { code: 'FLOW_INTERRUPTED', message: 'interrupted' } };
  return {
    status: 'failed',
    verdict: 'failed',
    outputs,
    error: {
      code: 'FLOW_SUBFLOW_FAILED',
      message: `sub-flow run ${runId} failed: ${outcome.reason?.message ?? 'a step failed'}`,
      // The child's own cause is the parent's: a gate failing in a sub-flow exits as a failed gate.
      ...(outcome.reason === undefined ? {} : { cause: outcome.reason.cause ?? outcome.reason.code }),
    },
  };
}
