/**
 * Processes: spawning in a group, the live registry and its journal, kill-tree, process
 * identity (pid + start time), the sweep of a dead neo's leftovers, keeping the process alive
 * while work waits on the outside. Paths: where a path an agent names really leads. Git: every
 * call hardened and pinned, snapshots of a work tree.
 */
export {
  describeProcess,
  identify,
  isRunningPid,
  isSameProcess,
  selfIdentity,
  type ProcessIdentity,
} from './identity.js';
export { keepAlive } from './keep-alive.js';
export { TAG_VARIABLE } from './proc.js';
export {
  groupAlive,
  isOurGroup,
  killTree,
  livingGroupMembers,
  signalGroup,
  waitGroupGone,
  type GroupRecord,
} from './process-group.js';
export { journalProcessesIn, killLiveGroupsNow, liveGroups, stopLiveGroups } from './registry/index.js';
export { spawnProcess, type ProcessResult, type RunningProcess, type SpawnOptions } from './spawn.js';
export { probeProcessBound, type ProcessBoundInfo, type ProcessBoundKind } from './process-bound.js';
export { sweepOrphanedProcesses, type SweptOwner } from './sweep.js';
export { lastLines, TailBuffer } from './tail-buffer.js';
export { spawnDetached } from './detached.js';
export { confinePath, realRoot, resolvePaths, resolveRealPath } from './paths.js';
export { runGit, gitFailure, type GitRun, type GitCallOptions } from './git.js';
export { GitRepo, gitMarker, type GitLocation } from './git-repo.js';
export {
  snapshotTree,
  diffTrees,
  changedPaths,
  type ChangedFile,
  type TreeDiff,
  type SnapshotStore,
} from './git-snapshot.js';
export { parsePorcelainZ, parseNumstatZ, parseNameStatusZ, type StatusEntry } from './git-parse.js';
export { acquireOwnerLock, type HeldLock, type LockOwner } from './owner-lock.js';
export { sandboxOf, SANDBOX_KINDS, type Sandbox, type SandboxSpawnOptions } from './sandbox.js';
export type { SandboxBind, SandboxKind, SandboxSpec } from './sandbox-spec.js';
export { movedProtected, pinProtected, protectedInside, readOnlyBindHolding } from './sandbox-writes.js';
export { withoutNetwork } from './net-unshare.js';
export { probeSandbox, requireSandbox, type SandboxAvailability } from './sandbox-probe.js';
export { confinedSpec, configHomePath, programBind, type Confinement } from './sandbox-confine.js';
export { runtimeLoan } from './runtime-loan.js';
export { onPath } from './runtime-path.js';
export { isPythonPrefix } from './python-runtime.js';
export { BASE_ENV_NAMES, confinedEnv, type ConfinedEnvOptions } from './confined-env.js';
