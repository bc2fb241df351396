/**
 * Flow runs on the hub: what an attached process reports about its runs becomes
 * `flow_run_event`, and an approval step starting (or a persona question appearing) becomes
 * `approval_requested`. The plan a run pinned (plan.json) says which steps are approvals.
 */
import { join } from 'node:path';
import { runDir, type CompiledPlan } from '../flow/index.js';
import { readJsonOrNull } from '../util/atomic-file.js';
import type { FlowReport } from './attach/protocol.js';
import type { EventHub } from './hub.js';
import type { InboxItem } from './approvals.js';

export interface FlowFeed {
  report(report: FlowReport, pid: number): void;
  /** A process went away: its runs are no longer driven by anyone this server can reach. */
  detached(runIds: Iterable<string>, pid: number): void;
  /** A question (or approval) someone must answer appeared. */
  requested(item: InboxItem): void;
  /** The sessions of a run's running steps (`step` or `step[2]` → session id), as its process told them. */
  stepSessions(runId: string): Record<string, string>;
}

export function createFlowFeed(home: string, hub: EventHub): FlowFeed {
  const plans = new Map<string, Promise<CompiledPlan | null>>();
  const planOf = (runId: string) => {
    let plan = plans.get(runId);
    if (plan === undefined) {
      plan = readJsonOrNull<CompiledPlan>(join(runDir(home, runId), 'plan.json')).catch(() => null);
      plans.set(runId, plan);
      // A run's first files are renamed into place a moment after it starts: read again next time.
      void plan.then((read) => read === null && plans.get(runId) === plan && plans.delete(runId));
    }
    return plan;
  };
  // Reports of one run are published in the order they came, even when one waits for its plan.
  let chain: Promise<void> = Promise.resolve();
  // A running step's session arrives as progress, long before the step's outputs name it.
  const sessions = new Map<string, Record<string, string>>();

  return {
    report(report, pid) {
      if (report.type === 'run') plans.delete(report.runId); // a resume may have rebased the plan
      if (report.type === 'progress' && report.progress.sessionId !== undefined) {
        const key =
          report.progress.item === undefined
            ? report.progress.step
            : `${report.progress.step}[${report.progress.item}]`;
        sessions.set(report.runId, { ...sessions.get(report.runId), [key]: report.progress.sessionId });
      }
      if (report.type === 'settled') sessions.delete(report.runId);
      chain = chain.then(async () => {
        hub.publish('flow_run_event', { ...report, pid });
        if (report.type !== 'event' || report.event.type !== 'step.started') return;
        const event = report.event;
        const step = (await planOf(report.runId))?.steps.find((s) => s.id === event.step);
        if (step?.kind !== 'approval' || step.approval === undefined) return;
        hub.publish('approval_requested', {
          kind: 'flow',
          runId: report.runId,
          key: event.item === undefined ? event.step : `${event.step}[${event.item}]`,
          prompt: step.approval.prompt,
          decisions: step.approval.decisions,
          live: true,
        } satisfies InboxItem);
      });
    },
    detached(runIds, pid) {
      for (const runId of runIds) {
        hub.publish('flow_run_event', { type: 'detached', runId, pid });
        plans.delete(runId);
      }
    },
    requested(item) {
      hub.publish('approval_requested', item);
    },
    stepSessions: (runId) => sessions.get(runId) ?? {},
  };
}
