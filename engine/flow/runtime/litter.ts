import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isRunningPid } from '../../execution/index.js';
import { sweepSessionLitter } from '../../session/index.js';
import { sweepTempFiles } from '../../util/atomic-file.js';
import { isId } from '../../util/ids.js';
import { runDir } from '../store/run-files.js';
import { removeRunOutputs } from './step-output.js';

/**
 * What a killed driver's half-done atomic writes left outside the run's own folder (which
 * `tidyRuns` sweeps): temp files in its sub-flows' run folders (`<runId>.<step>.<n>-<m>`, which a
 * resume may never reopen: a finished sub-flow is not run again) and in the folders of the
 * sessions it drove in its own process, and its steps' output folders in NEO_HOME/io. A file
 * whose writer still runs is left alone.
 */
export async function sweepRunLitter(home: string, runId: string): Promise<void> {
  const names = await readdir(join(home, 'runs')).catch(() => [] as string[]);
  const subflows = names.filter((name) => name.startsWith(`${runId}.`) && isId('run', name));
  await Promise.all([
    ...subflows.map((name) => sweepTempFiles(runDir(home, name), isRunningPid)),
    sweepSessionLitter(home),
    // A killed step's $NEO_OUTPUT folder: its execution is over, the resume runs it afresh.
    removeRunOutputs(home, runId),
  ]);
}
