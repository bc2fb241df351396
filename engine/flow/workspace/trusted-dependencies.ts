/**
 * The run's trusted dependency folders: the stamps a gate judges its dependency folders against.
 * A gated step's own start is too late a base: an earlier agent step of the run (without a gate
 * of its own) could have rewritten the test runner in `node_modules` — git-ignored, in no diff —
 * and the gate would run it. The stamps are taken when the run first starts and again after each
 * `run:` step that succeeds (the plan's own commands: `npm ci` installs what the gate uses), never
 * after an agent step; a gate whose folders differ from them refuses to judge
 * (FLOW_GATE_DEPENDENCIES_CHANGED). Kept under NEO_HOME (hidden from every sandbox) with a MAC
 * under the store key, so nothing a confined step writes is read back as them.
 */
import { join } from 'node:path';
import type { CompiledPlan } from '../core/plan.js';
import { mkdirPrivate } from '../../util/private-store.js';
import { storeKey } from '../../util/store-key.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { findDependencyFolders, stampFolders, type FolderStamp } from './dependencies.js';
import { readGateRecord, writeGateRecord } from './gate-record.js';
import { gateRunDir } from './gate-tree.js';
import { workspaceRepo } from './step-base.js';

const KIND = 'neo trusted dependencies v1';

/** Whether any agent step of `plan` has a gate (only then are the stamps worth their walk). */
export function plansGates(plan: CompiledPlan): boolean {
  return plan.steps.some((step) => step.agent?.verify !== undefined);
}

/** Stamps the workspace's dependency folders as the run's trusted ones (`onlyIfAbsent`: at a resume, keep them). */
export async function trustDependencies(options: {
  workspace: WorkspaceRecord;
  home: string;
  runId: string;
  onlyIfAbsent?: boolean;
}): Promise<void> {
  const { workspace, home, runId } = options;
  const dir = gateRunDir(home, runId);
  const file = join(dir, 'dependencies.json');
  if (options.onlyIfAbsent === true && (await trustedDependencies(home, runId)) !== undefined) return;
  const repo = await workspaceRepo(workspace, home);
  const folders = await findDependencyFolders(workspace.root, repo === undefined ? undefined : { repo }, [home]);
  const stamps = await stampFolders(workspace.root, folders);
  await mkdirPrivate(dir);
  await writeGateRecord(file, storeKey(home), KIND, stamps);
}

/** The run's trusted stamps, or undefined before any were taken; FLOW_GATE_TAMPERED when not neo's. */
export function trustedDependencies(home: string, runId: string): Promise<FolderStamp[] | undefined> {
  return readGateRecord<FolderStamp[]>(
    join(gateRunDir(home, runId), 'dependencies.json'),
    storeKey(home),
    KIND,
    "something outside neo changed NEO_HOME's gate records; start the run again and find out what wrote there",
  );
}
