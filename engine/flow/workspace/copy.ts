import { copyFile, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { checkId } from '../../util/ids.js';
import { mkdirPrivate } from '../../util/private-store.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { requireKept, type Workspace } from './workspace.js';

/** A plain copy of the project under NEO_HOME/workspaces/<runId> (for folders without git). */
export async function createCopy(options: { projectDir: string; home: string; runId: string }): Promise<Workspace> {
  const root = join(options.home, 'workspaces', checkId('run', options.runId));
  const home = resolve(options.home);
  try {
    await mkdirPrivate(join(options.home, 'workspaces'));
    await copyTree(resolve(options.projectDir), root, (path) => path === home || path.startsWith(home + sep));
  } catch (error) {
    throw new NeoError(
      'FLOW_WORKSPACE_COPY',
      `could not copy ${options.projectDir} to ${root}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return copyWorkspace({ isolation: 'copy', path: root, root, projectDir: options.projectDir });
}

/**
 * Copies a tree, leaving out `.git` and anything `skip` names — NEO_HOME may sit inside the
 * project (a test's temp folder), and a copy must never walk into itself.
 */
async function copyTree(from: string, to: string, skip: (path: string) => boolean): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.name === '.git' || skip(source)) continue;
    const target = join(to, entry.name);
    if (entry.isDirectory()) await copyTree(source, target, skip);
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else if (entry.isFile()) await copyFile(source, target);
  }
}

/** The copy of a run being resumed. */
export async function reopenCopy(record: WorkspaceRecord): Promise<Workspace> {
  await requireKept(record, 'copy');
  return copyWorkspace(record);
}

function copyWorkspace(record: WorkspaceRecord): Workspace {
  return {
    record,
    warnings: [],
    async release() {},
    async finish({ runId }) {
      return {
        lines: [
          `workspace (a copy of ${record.projectDir}): ${record.path}`,
          // A copy has no history: whether its changes were taken is the user's to say.
          `remove it when you have what you need: neo flow clean ${runId} --force`,
        ],
      };
    },
  };
}
