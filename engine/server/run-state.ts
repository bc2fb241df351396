import {
  initialRunState,
  readRunEvents,
  readRunSnapshot,
  reduce,
  runDir,
  type RunEvent,
  type RunState,
} from '../flow/index.js';

/**
 * A run's state as of its last event: the last checkpoint (snapshot.json, which may lag by one
 * coalescing interval) with every later event of events.jsonl folded in — the same fold a
 * resume does, so what the page shows is what the run will act on.
 */
export async function currentRunState(home: string, runId: string): Promise<{ state: RunState | null; seq: number }> {
  const snapshot = await readRunSnapshot(home, runId);
  let events: RunEvent[];
  try {
    events = await readRunEvents(runDir(home, runId));
  } catch {
    return { state: snapshot?.state ?? null, seq: snapshot?.seq ?? 0 };
  }
  let state = snapshot?.state ?? null;
  if (state === null) {
    const started = events.find((e) => e.type === 'run.started');
    if (started === undefined) return { state: null, seq: 0 };
    state = initialRunState(runId, started.steps);
  }
  for (const event of events) if (event.seq > state.seq) state = reduce(state, event);
  return { state, seq: state.seq };
}
