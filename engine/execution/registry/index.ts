/**
 * The live registry of process groups and its journal, as a sub-area of its own: the `neo`
 * binary imports it before every command (to journal and, at the end, stop what a command
 * left running), and through the execution barrel it would load git, the sandbox and the
 * posture module with it (docs/architecture.md, "Start-up").
 */
export {
  journalFolder,
  journalProcessesIn,
  killLiveGroupsNow,
  leaderExited,
  liveGroups,
  nextTag,
  ownerId,
  stopLiveGroups,
  trackGroup,
  type JournalOwner,
} from './live-groups.js';
