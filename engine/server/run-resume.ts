/**
 * `POST /api/flows/runs/:id/resume`: a failed or interrupted run is resumed by a new
 * `neo flow resume` process — the same command a person would type — which attaches to the
 * server like any run. It is detached (it outlives the server) and logs into the run's folder.
 */
import { openSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnDetached } from '../execution/index.js';
import { readRunRecord, runDir } from '../flow/index.js';
import { APPEND_NO_FOLLOW } from '../util/no-follow.js';

export async function spawnFlowResume(
  home: string,
  neoArgv: readonly string[],
  runId: string,
): Promise<{ pid: number; log: string }> {
  const record = await readRunRecord(home, runId);
  const log = join(runDir(home, runId), 'serve-resume.log');
  // Never through a link planted in the run's folder.
  const fd = openSync(log, APPEND_NO_FOLLOW, 0o600);
  try {
    const child = spawnDetached([...neoArgv, 'flow', 'resume', runId, '--json'], {
      cwd: record.workspace?.projectDir ?? dirname(record.planFile),
      env: { ...process.env, NEO_HOME: home },
      stdout: fd,
      stderr: fd,
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', reject);
    });
    child.unref();
    return { pid, log };
  } finally {
    closeSync(fd);
  }
}
