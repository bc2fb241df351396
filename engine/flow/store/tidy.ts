import { lstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describeProcess, isRunningPid, sweepOrphanedProcesses } from '../../execution/index.js';
import { sweepTempFiles } from '../../util/atomic-file.js';
import { isId } from '../../util/ids.js';
import { approvalsDir, runDir } from './run-files.js';

/**
 * Before runs are listed or one is resumed: what a dead neo left running is stopped (its agent
 * CLI, a command, a gate — found through its process journal, checked to be still its own), and
 * the temp files of atomic writes it was killed in the middle of are removed, from the named run's
 * folder and its approvals folder (an answer killed before its link), or from every run's. Returns one line per dead owner whose processes were stopped.
 */
export async function tidyRuns(home: string, runId?: string): Promise<string[]> {
  const swept = await sweepOrphanedProcesses(home);
  const ids = runId !== undefined ? [runId] : await runIds(home);
  const folders = [
    ...(runId === undefined ? [join(home, 'runs')] : []),
    ...ids.flatMap((id) => [runDir(home, id), approvalsDir(home, id)]),
  ];
  // A run folder that is a link (planted, or anything else) is not neo's to clean.
  const real = folders.filter((dir) => lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true);
  await Promise.all(real.map((dir) => sweepTempFiles(dir, isRunningPid)));
  return swept.map(
    (owner) =>
      `stopped what a dead neo (${owner.command}, ${describeProcess(owner.owner)}) left running: ${owner.groups
        .map((g) => `${g.label} (group ${g.pgid})`)
        .join(', ')}`,
  );
}

async function runIds(home: string): Promise<string[]> {
  const names = await readdir(join(home, 'runs')).catch(() => [] as string[]);
  // A folder whose name is not a run id is not neo's to clean.
  return names.filter((name) => isId('run', name));
}
