import { join } from 'node:path';
import {
  resumeRun,
  startRun,
  type FlowObservation,
  type ResumeOptions,
  type RunEvent,
  type StartOptions,
} from '../../../engine/flow/index.js';
import { readRunLog } from '../../../engine/flow/store/checked-run.js';
import { commitAll } from '../../helpers/git.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

/** A temp project (optionally a git repo with one commit) and its own NEO_HOME. */
export async function project(
  files: Record<string, string>,
  options: { git?: boolean } = {},
): Promise<{ dir: string; home: string }> {
  const root = await tempDir('neo-flow-');
  const dir = join(root, 'project');
  const home = join(root, 'home');
  await writeTree(dir, files);
  if (options.git) await commitAll(dir);
  return { dir, home };
}

export { commitAll };

/** Starts a run of `plan.yaml` in `dir`, collecting every observation. */
export async function run(dir: string, home: string, options: Partial<StartOptions> = {}) {
  const seen: FlowObservation[] = [];
  const outcome = await startRun({
    home,
    cwd: dir,
    planFile: 'plan.yaml',
    isolation: 'copy',
    ...options,
    observer: (o) => (seen.push(o), options.observer?.(o)),
  });
  return { outcome, seen, events: eventsOf(seen, outcome.runId) };
}

export async function resume(home: string, dir: string, runId: string, options: Partial<ResumeOptions> = {}) {
  const seen: FlowObservation[] = [];
  const outcome = await resumeRun({
    home,
    cwd: dir,
    runId,
    ...options,
    observer: (o) => (seen.push(o), options.observer?.(o)),
  });
  return { outcome, seen, events: eventsOf(seen, runId) };
}

export function eventsOf(seen: readonly FlowObservation[], runId: string): RunEvent[] {
  return seen.flatMap((o) => (o.type === 'event' && o.runId === runId ? [o.event] : []));
}

/** The persisted events of a run, as written (their chain checked, each without its MAC). */
export async function persisted(home: string, runId: string): Promise<RunEvent[]> {
  return (await readRunLog(home, runId)).events;
}

/** `type step` lines for compact assertions. */
export function trace(events: readonly RunEvent[]): string[] {
  return events.map((e) => {
    const step = 'step' in e ? ` ${e.step}${'item' in e && e.item !== undefined ? `[${e.item}]` : ''}` : '';
    const status =
      e.type === 'step.completed' || e.type === 'run.finished'
        ? ` ${e.status}`
        : e.type === 'step.skipped'
          ? ` (${e.reason})`
          : '';
    return `${e.type}${step}${status}`;
  });
}
