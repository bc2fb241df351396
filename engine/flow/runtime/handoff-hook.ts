/**
 * The run's side of seed 003's harness-to-memory contract: after every step that ends (and when
 * the run starts, resumes or ends), neo writes the run's hand-off — plan, completed steps, files
 * touched, decisions, repository path — into the repository's memory (engine/memory/handoff.ts).
 * Built from the run's own state (events neo folded), never from anything an agent wrote. Writes
 * are chained, so they land in order, and coalesced: the latest state is written at most
 * HANDOFF_DELAY_MS after its event, or at once when a step's brief (or the run's end) waits for
 * it (`handoffWritten`). A failed write is dropped: the hand-off is a record beside the run.
 */
import type { RunEvent } from '../core/events.js';
import type { CompiledPlan } from '../core/plan.js';
import type { RunState, StepState } from '../core/state.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { hasMemoryDatabase, memoryOff, writeHandoff } from '../../memory/paths/index.js';

const WRITES_ON = new Set<RunEvent['type']>([
  'run.started',
  'run.resumed',
  'step.completed',
  'step.skipped',
  'run.interrupted',
  'run.finished',
]);

/**
 * How long a hand-off waits for the next event before it is written: a run of quick steps
 * writes one hand-off a second, not one per step (each write is the whole plan, the run's
 * decisions and a rename: at 100 ms a loaded machine, whose steps each took longer, still wrote
 * one per step — 7–10% of a run of 100 `true` steps). Whoever needs it now — a step's brief,
 * the run's end — flushes it; a killed neo's is at most this stale, and its resume writes it.
 */
const HANDOFF_DELAY_MS = 1_000;

interface Pending {
  /** The run at its latest event, not yet written. */
  latest: (() => Promise<void>) | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The writes started so far, in order. */
  written: Promise<void>;
}

const pending = new Map<string, Pending>();

/** Resolves when the hand-offs of `runId` asked for so far are written (a waiting one is written now). */
export function handoffWritten(runId: string): Promise<void> {
  return flush(runId);
}

function flush(runId: string): Promise<void> {
  const entry = pending.get(runId);
  if (entry === undefined) return Promise.resolve();
  clearTimeout(entry.timer);
  entry.timer = undefined;
  const write = entry.latest;
  entry.latest = undefined;
  if (write === undefined) return entry.written;
  const written = entry.written.then(write);
  entry.written = written;
  void written.then(() => {
    if (pending.get(runId) === entry && entry.written === written && entry.latest === undefined) pending.delete(runId);
  });
  return written;
}

const memory = () => import('../../memory/index.js');
const repoOf = (workspace: WorkspaceRecord) => workspace.repo ?? workspace.projectDir;

/** Called with each event the run folded: writes the hand-off when a step or the run ends. */
export function noteHandoff(
  home: string,
  workspace: WorkspaceRecord,
  event: RunEvent,
  state: RunState,
  plan: CompiledPlan,
): void {
  if (!WRITES_ON.has(event.type) || memoryOff()) return;
  // The state now, not when the write runs: each write is the run at its latest event.
  const snapshot = { state, plan };
  const entry = pending.get(state.runId) ?? { latest: undefined, timer: undefined, written: Promise.resolve() };
  pending.set(state.runId, entry);
  entry.latest = async () => {
    try {
      const repo = repoOf(workspace);
      // A repository with no memory database has no decisions: the store (SQLite, the memory
      // chunk) is loaded only for one that has.
      const decisions = hasMemoryDatabase(home, repo)
        ? (await memory()).runDecisions(home, repo, snapshot.state.runId)
        : [];
      writeHandoff(home, { ...handoffOf(snapshot.state, snapshot.plan, repo, workspace.root), decisions });
    } catch {
      // A record beside the run, never a reason for it to fail.
    }
  };
  if (entry.timer === undefined) {
    entry.timer = setTimeout(() => void flush(state.runId), HANDOFF_DELAY_MS);
    // A run that ends flushes it (drive.ts); the timer alone never keeps the process up.
    entry.timer.unref();
  }
}

/** The files a step's (or its items') diff touched. */
function filesOf(step: StepState): string[] {
  const units = step.units ?? [step];
  const files = new Set<string>();
  for (const unit of units) {
    const diff = unit.outputs?.diff as { files?: Array<{ path: string }> } | undefined;
    for (const file of Array.isArray(diff?.files) ? diff.files : []) files.add(file.path);
  }
  return [...files].sort();
}

function handoffOf(state: RunState, plan: CompiledPlan, repo: string, workspace: string) {
  const completed = plan.steps
    .map((p) => ({ id: p.id, step: state.steps.get(p.id) }))
    .filter(
      (s): s is { id: string; step: StepState } =>
        s.step !== undefined && ['succeeded', 'failed', 'skipped', 'cancelled'].includes(s.step.status),
    )
    .map(({ id, step }) => ({
      step: id,
      status: step.status,
      ...(step.verdict === undefined ? {} : { verdict: step.verdict }),
      ...(step.error === undefined ? {} : { error: step.error.code }),
      files: filesOf(step),
    }));
  return {
    version: 1 as const,
    runId: state.runId,
    flow: plan.name,
    status: state.status,
    updatedAt: new Date().toISOString(),
    repo,
    workspace,
    plan: plan.steps.map((p) => ({
      id: p.id,
      kind: p.kind,
      needs: p.needs,
      ...(p.agent === undefined ? {} : { brief: p.agent.brief.slice(0, 300) }),
    })),
    completed,
    filesTouched: [...new Set(completed.flatMap((c) => c.files))].sort(),
  };
}
