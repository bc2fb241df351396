import { copyFile, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { checkId } from '../../util/ids.js';
import { mkdirPrivate } from '../../util/private-store.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { requireKept, type Workspace } from './workspace.js';
import { lendableFolders, lendFolders, type DependencyMode, type LentFolder } from './lend.js';
import { toolchainLoan } from './toolchains.js';
import { defined } from '../../util/defined.js';

/**
 * A plain copy of the project under NEO_HOME/workspaces/<runId> (for folders without git). Its
 * installed dependencies are not copied: they are lent (lend.ts), unless `dependencies: none`.
 */
export async function createCopy(options: {
  projectDir: string;
  home: string;
  runId: string;
  dependencies?: DependencyMode;
}): Promise<Workspace> {
  const root = join(options.home, 'workspaces', checkId('run', options.runId));
  const home = resolve(options.home);
  const from = resolve(options.projectDir);
  const folders = await lendableFolders(from, undefined, [home]);
  const left = new Set(folders.map((path) => join(from, ...path.split('/'))));
  let lent: LentFolder[] = [];
  const warnings: string[] = [];
  try {
    await mkdirPrivate(join(options.home, 'workspaces'));
    await copyTree(from, root, (path) => path === home || path.startsWith(home + sep) || left.has(path));
    if (options.dependencies !== 'none') {
      const lending = await lendFolders({ checkout: from, workspace: root, folders });
      lent = lending.lent;
      warnings.push(...lending.skipped.map((what) => `the project's ${what} could not be lent to the copy`));
    }
  } catch (error) {
    throw new NeoError(
      'FLOW_WORKSPACE_COPY',
      `could not copy ${options.projectDir} to ${root}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return copyWorkspace(
    {
      isolation: 'copy',
      path: root,
      root,
      projectDir: options.projectDir,
      ...(lent.length === 0 ? {} : { dependencies: lent }),
      ...defined({ toolchains: options.dependencies === 'none' ? undefined : toolchainLoan([from]) }),
    },
    warnings,
  );
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
  return copyWorkspace(record, []);
}

function copyWorkspace(record: WorkspaceRecord, warnings: string[]): Workspace {
  return {
    record,
    warnings,
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
