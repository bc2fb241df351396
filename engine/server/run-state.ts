import { readShownRun, type RunState } from '../flow/index.js';

/**
 * A run's state as of its last event: the fold of its events.jsonl once its chain checks (the
 * same fold a resume does, so what the page shows is what the run would act on). A run whose
 * files do not check has no state to show (null); snapshot.json is never read back.
 */
export async function currentRunState(home: string, runId: string): Promise<{ state: RunState | null; seq: number }> {
  const { state } = await readShownRun(home, runId);
  return { state, seq: state?.seq ?? 0 };
}
