/** Capability curation (seed 004 §9): catalog, project detection, the trust ledger, per-backend provisioning. */
export {
  catalogEntries,
  needsApproval,
  pinnedIdentity,
  sourceLabel,
  type CatalogEntry,
  type TrustTier,
} from './catalog.js';
export { acknowledgeProvision, type TransportProvision } from './acknowledge.js';
export { approvalOf, approve, isApproved, revoke, type Approval } from './ledger.js';
export {
  buildProvisionPlan,
  provisionDir,
  removeProvisionDir,
  type IgnoredItem,
  type Protocol,
} from './plan-builder.js';
export { buildProjectProfile, profilePath, type DetectedCapability, type ProjectProfile } from './profile.js';
export { resolveSessionProvision, type ProvisionInput, type ProvisionMeta } from './provision.js';
export {
  closeRequest,
  fileRequest,
  isCapabilityId,
  openRequests,
  readRequest,
  type CapabilityRequest,
} from './requests.js';
export { refreshPass, scheduleCapabilityRefresh, updateFetchOptions, updatesReportPath } from './refresh-job.js';
export { ruleLabel } from './rules.js';
export { githubSkillFetcher, SKILL_MAX_BYTES, SKILL_MAX_FILES, type SkillFetcher } from './skill-fetcher.js';
export { tokenScopeNote } from './token-scope.js';
export { checkForUpdates, type UpdateFinding } from './updates.js';
export { capabilitiesEnabled, neoCommand } from './this-neo.js';
