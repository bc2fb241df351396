import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash } from '../../util/content-hash.js';
import { NeoError } from '../../util/errors.js';
import { describeProcess } from '../../execution/index.js';
import { acquireLockFile, takeOverNotice } from '../store/lock-file.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import type { Workspace } from './workspace.js';
import { toolchainLoan } from './toolchains.js';
import { defined } from '../../util/defined.js';

/**
 * The checkout itself, locked against every other run that would work in it: one lock file per
 * repository under NEO_HOME/locks, naming the run that holds it.
 */
export async function lockInPlace(options: {
  projectDir: string;
  repo?: string;
  home: string;
  runId: string;
}): Promise<Workspace> {
  const projectDir = realpathSync(options.projectDir);
  const root = options.repo === undefined ? projectDir : realpathSync(options.repo);
  return lockRecord(
    {
      isolation: 'inplace',
      path: projectDir,
      root,
      projectDir,
      ...(options.repo === undefined ? {} : { repo: root }),
      // Its own dependencies are its own; a Go or Rust toolchain under the home is lent like any workspace's.
      ...defined({ toolchains: toolchainLoan([root, projectDir]) }),
    },
    options.home,
    options.runId,
  );
}

/** Re-takes the lock of a run being resumed. */
export function relockInPlace(record: WorkspaceRecord, home: string, runId: string): Promise<Workspace> {
  return lockRecord(record, home, runId);
}

async function lockRecord(record: WorkspaceRecord, home: string, runId: string): Promise<Workspace> {
  const path = join(home, 'locks', `${contentHash(record.root).slice(0, 16)}.lock`);
  const lock = acquireLockFile(
    path,
    runId,
    (holder) =>
      new NeoError(
        'FLOW_WORKSPACE_LOCKED',
        `${record.root} is in use by run ${holder.runId} (${describeProcess(holder)})`,
        { hint: 'wait for it to finish, or use `workspace.isolation: worktree` so runs never share a checkout' },
      ),
  );
  return {
    record,
    warnings: lock.tookOverFrom === undefined ? [] : [takeOverNotice(record.root, lock.tookOverFrom)],
    release: async () => lock.release(),
    async finish() {
      lock.release();
      return { lines: [`workspace (in place): ${record.path}`] };
    },
  };
}
