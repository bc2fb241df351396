import {
  costLabel,
  failureOutputHeading,
  formatDuration,
  type FailureOutput,
  type CompiledPlan,
  type ExecutionProgress,
  type FlowObservation,
  type StepError,
} from '../../engine/flow/index.js';
import { defined } from '../../engine/util/defined.js';

/** What the terminal shows for one step of one run: its state, and the last progress its execution reported. */
export interface StepLine extends Pick<
  ExecutionProgress,
  'backend' | 'model' | 'round' | 'maxRounds' | 'tool' | 'filesChanged' | 'costUsd' | 'note'
> {
  id: string;
  kind: string;
  status: string;
  startedAt?: number;
  endedAt?: number;
  verdict?: string;
  error?: StepError;
  skipReason?: string;
  attempt?: number;
  items?: { total: number; done: number; failed: number };
  outputs?: Record<string, unknown>;
  /** Its backend replays a script: the costs it reports were never spent. */
  simulated?: boolean;
}

/** One run (the top one or a sub-flow) as the terminal shows it. */
export interface RunView {
  runId: string;
  depth: number;
  flow: string;
  plan: CompiledPlan;
  steps: Map<string, StepLine>;
  startedAt: number;
}

/**
 * The display state of a run and its sub-flows, folded from observations. The live tree, the
 * plain lines and the final summary all read it.
 */
export class FlowView {
  readonly runs = new Map<string, RunView>();
  readonly order: string[] = [];

  apply(o: FlowObservation): void {
    if (o.type === 'run') {
      const steps = new Map<string, StepLine>();
      for (const step of o.plan.steps) {
        const old = this.runs.get(o.runId)?.steps.get(step.id);
        const persisted = o.record.steps[step.id];
        steps.set(
          step.id,
          old ?? {
            id: step.id,
            kind: step.kind,
            status: persisted?.status ?? 'pending',
            ...defined({ backend: step.agent?.backend, model: step.agent?.model, verdict: persisted?.verdict }),
            ...(step.agent?.simulated === true ? { simulated: true } : {}),
          },
        );
      }
      if (!this.runs.has(o.runId)) this.order.push(o.runId);
      this.runs.set(o.runId, {
        runId: o.runId,
        depth: o.depth,
        flow: o.plan.name,
        plan: o.plan,
        steps,
        startedAt: Date.now(),
      });
      return;
    }
    const run = this.runs.get(o.runId);
    if (run === undefined) return;
    if (o.type === 'progress') {
      const line = run.steps.get(o.progress.step);
      if (line === undefined) return;
      const { exec: _exec, step: _step, item: _item, notice, ...rest } = o.progress;
      Object.assign(line, rest);
      // The live tree shows the latest notice where a step's note goes.
      if (notice !== undefined) line.note = notice;
      return;
    }
    if (o.type !== 'event') return;
    const e = o.event;
    if (e.type === 'plan.updated') {
      for (const id of e.added)
        run.steps.set(id, { id, kind: run.plan.steps.find((s) => s.id === id)?.kind ?? 'step', status: 'pending' });
      for (const id of e.removed) run.steps.delete(id);
      return;
    }
    if (!('step' in e)) return;
    const line = run.steps.get(e.step);
    if (line === undefined) return;
    const at = Date.parse(e.at);
    switch (e.type) {
      case 'step.started':
        if (e.item === undefined) {
          line.status = run.plan.steps.find((s) => s.id === e.step)?.kind === 'approval' ? 'waiting' : 'running';
          line.startedAt ??= at;
          line.attempt = e.attempt;
          delete line.note;
        }
        return;
      case 'step.expanded':
        line.status = 'running';
        line.startedAt = at;
        line.items = { total: e.items.length, done: 0, failed: 0 };
        return;
      case 'step.retrying':
        if (e.item === undefined) line.note = `retry ${e.attempt} in ${formatDuration(e.delayMs)}: ${e.error.message}`;
        return;
      case 'step.iterated':
        if (e.item === undefined) line.note = `iteration ${e.iteration}`;
        return;
      case 'step.skipped':
        line.status = 'skipped';
        line.skipReason = e.reason;
        return;
      case 'step.completed':
        if (e.item !== undefined) {
          if (line.items) {
            line.items.done++;
            if (e.status !== 'succeeded') line.items.failed++;
          }
          return;
        }
        line.status = e.status;
        line.endedAt = at;
        if (e.verdict !== undefined) line.verdict = e.verdict;
        if (e.error !== undefined) line.error = e.error;
        if (e.outputs !== undefined) line.outputs = e.outputs;
        delete line.tool;
        delete line.note;
        return;
    }
  }
}

export const ICONS: Record<string, string> = {
  pending: '·',
  running: '▸',
  waiting: '⏸',
  succeeded: '✓',
  failed: '✗',
  skipped: '↷',
  cancelled: '⊘',
};

/** The evidence of a finished step: verdict, gate, diff, cost, time. */
export function evidenceOf(
  line: Pick<
    StepLine,
    'verdict' | 'outputs' | 'startedAt' | 'endedAt' | 'error' | 'skipReason' | 'status' | 'simulated'
  >,
): string[] {
  const out: string[] = [];
  const o = line.outputs ?? {};
  if (line.status === 'skipped')
    return [
      `skipped (${line.skipReason === 'if' ? 'its if was false' : line.skipReason === 'join' ? 'a need did not succeed' : (line.skipReason ?? '')})`,
    ];
  if (line.verdict !== undefined) out.push(line.verdict);
  const gate = o.gate as
    { command?: string; passed?: boolean; attempt?: number; attempts?: number; flaky?: boolean } | undefined;
  if (gate?.command !== undefined)
    out.push(
      `gate \`${gate.command}\` ${gate.passed ? 'passed' : 'failed'} (attempt ${gate.attempt}/${gate.attempts}${gate.flaky ? ', flaky' : ''})`,
    );
  const baseline = o.baseline as { passed?: boolean } | undefined;
  if (baseline !== undefined) out.push(`baseline ${baseline.passed ? 'passed' : 'failed'}`);
  const diff = o.diff as { summary?: string } | undefined;
  if (diff?.summary !== undefined) out.push(diff.summary);
  if (typeof o.exitCode === 'number' && line.verdict === undefined) out.push(`exit ${o.exitCode}`);
  if (typeof o.decision === 'string') {
    if (line.verdict === undefined) out.push(o.decision);
    out.push(o.preapproved === true ? 'pre-approved with --yes' : `by ${String(o.by ?? '?')}`);
    if (typeof o.note === 'string' && o.preapproved !== true) out.push(JSON.stringify(o.note));
  }
  if (typeof o.costUsd === 'number') out.push(costLabel(o.costUsd, line.simulated === true ? o.costUsd : 0));
  if (typeof o.count === 'number') out.push(`${o.count} items, ${String(o.failed ?? 0)} failed`);
  if (line.startedAt !== undefined && line.endedAt !== undefined)
    out.push(formatDuration(line.endedAt - line.startedAt));
  return out;
}

/** A step line of the live tree. */
export function liveLine(line: StepLine, now: number): string {
  const parts = [
    line.kind === 'agent' ? `agent · ${line.backend ?? '?'}${line.model ? ` · ${line.model}` : ''}` : line.kind,
  ];
  if (line.status === 'running' || line.status === 'waiting') {
    if (line.round !== undefined) parts.push(`round ${line.round}${line.maxRounds ? `/${line.maxRounds}` : ''}`);
    if (line.tool) parts.push(line.tool);
    if (line.filesChanged) parts.push(`${line.filesChanged} file${line.filesChanged === 1 ? '' : 's'} changed`);
    if (line.costUsd) parts.push(costLabel(line.costUsd, line.simulated === true ? line.costUsd : 0));
    if (line.items) parts.push(`${line.items.done}/${line.items.total} items`);
    if (line.startedAt !== undefined) parts.push(formatDuration(now - line.startedAt));
    if (line.note) parts.push(line.note);
  } else if (line.status !== 'pending') {
    parts.push(...evidenceOf(line));
    if (line.error && line.status !== 'skipped') parts.push(`${line.error.code}: ${line.error.message}`);
  }
  return parts.join('  ');
}

/**
 * A failed step's own output under its error, as the summary and `neo flow show` print it: a
 * heading, then each line behind a bar. The text is the run's record: the caller has already
 * passed it through the terminal sanitiser.
 */
export function failureOutputLines(output: FailureOutput | undefined, dim: (text: string) => string): string[] {
  if (output === undefined) return [];
  return [dim(failureOutputHeading(output)), ...output.lines.map((line) => `${dim('│')} ${line}`)];
}
