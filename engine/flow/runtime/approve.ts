import { userInfo } from 'node:os';
import { didYouMean } from '../../util/did-you-mean.js';
import { UsageError } from '../../util/errors.js';
import { AnswerTakenError } from '../../util/approval-answer.js';
import { isTerminal } from '../core/state.js';
import { readCheckedRun } from '../store/checked-run.js';
import type { RunRecord } from '../store/run-files.js';
import { driverAlive } from '../store/runs.js';
import { askingOf, writeApproval } from './approvals.js';
import { defined } from '../../util/defined.js';

/**
 * Answers a run's approval from another terminal (`neo flow approve`). The answer is checked
 * against the run's authenticated files (checked-run.ts: a tampered run is refused, never
 * answered) — the step must be an approval of that run, not answered yet by its events, and the
 * decision one of its own — then left, sealed with its MAC, in NEO_HOME/approvals/ where the
 * waiting run (or a later resume) takes it. Only the first answer is left: a second one, from any
 * process, throws FLOW_APPROVAL_ANSWERED naming the first (writeApproval's check-and-set).
 */
export async function approveRun(options: {
  home: string;
  runId: string;
  step: string;
  decision: string;
  note?: string;
  /** Who answers (default `cli (<user>)`). */
  by?: string;
}): Promise<{ record: RunRecord; key: string; live: boolean }> {
  const { record, plan, state } = await readCheckedRun(options.home, options.runId);
  const match = /^(.+?)(?:\[(\d+)\])?$/.exec(options.step);
  const stepId = match?.[1] ?? options.step;
  const item = match?.[2] === undefined ? undefined : Number(match[2]);
  const step = plan.steps.find((s) => s.id === stepId);
  if (step === undefined) {
    const approvals = plan.steps.filter((s) => s.kind === 'approval').map((s) => s.id);
    const suggestion = didYouMean(stepId, approvals);
    throw new UsageError('FLOW_UNKNOWN_STEP', `run ${record.runId} has no step \`${stepId}\``, {
      hint: suggestion ? `did you mean \`${suggestion}\`?` : `its approvals: ${approvals.join(', ') || '(none)'}`,
    });
  }
  if (step.kind !== 'approval')
    throw new UsageError('FLOW_NOT_AN_APPROVAL', `step \`${stepId}\` is a ${step.kind} step, not an approval`);
  const decisions = step.approval!.decisions.map((d) => d.id);
  if (!decisions.includes(options.decision)) {
    throw new UsageError('FLOW_UNKNOWN_DECISION', `\`${options.decision}\` is not a decision of \`${stepId}\``, {
      hint: `choose one of: ${decisions.join(', ')}`,
    });
  }
  const folded = state.steps.get(stepId);
  const unit = item === undefined ? folded : folded?.units?.[item];
  if (unit !== undefined && isTerminal(unit.status)) {
    const { decision, by, note } = unit.outputs ?? {};
    if (typeof decision === 'string' && typeof by === 'string')
      throw new AnswerTakenError('FLOW_APPROVAL_ANSWERED', `\`${options.step}\` of run ${record.runId}`, {
        decision,
        by,
        at: unit.endedAt ?? record.updatedAt,
        ...(typeof note === 'string' ? { note } : {}),
      });
    throw new UsageError('FLOW_APPROVAL_ANSWERED', `\`${options.step}\` is already ${unit.status}`);
  }
  if (record.status === 'succeeded' || record.status === 'failed')
    throw new UsageError('FLOW_RUN_FINISHED', `run ${record.runId} already ${record.status}`);
  await writeApproval(options.home, record.runId, options.step, {
    decision: options.decision,
    ...defined({ note: options.note }),
    by: options.by ?? `cli (${safeUser()})`,
    at: new Date().toISOString(),
    // The asking in progress, or the one the unit starts next (a pending unit is attempt 1).
    asking: askingOf(unit ?? { attempt: 1, iteration: 1 }),
  });
  return { record, key: options.step, live: driverAlive(record) };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
