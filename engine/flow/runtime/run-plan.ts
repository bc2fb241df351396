import { join } from 'node:path';
import { readJsonOrNull } from '../../util/atomic-file.js';
import type { CompiledPlan } from '../core/plan.js';
import { RUN_FILES, runDir } from '../store/run-files.js';

/** The compiled plan a run pinned (plan.json), or null when it cannot be read. */
export function readRunPlan(home: string, runId: string): Promise<CompiledPlan | null> {
  return readJsonOrNull<CompiledPlan>(join(runDir(home, runId), RUN_FILES.plan)).catch(() => null);
}
