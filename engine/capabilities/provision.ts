/**
 * The capability pipeline of one session start (seed 004 §9): detect what the project calls for,
 * gate it on trust, build the backend's plan under the session's folder, and say all of it on the
 * session record. T0/T1/T2R pass; a T2/T3 entry not approved at its pinned identity is deferred —
 * left out of this session, its approval request filed in the inbox — and the session never
 * waits for it. Nothing here fails a start: a capability's trouble is an ignored item with a reason.
 */
import type { DefinitionSet } from '../definitions/index.js';
import type { ProvisionPlan } from '../transports/index.js';
import { catalogEntries, needsApproval, pinnedIdentity, type CatalogEntry, type TrustTier } from './catalog.js';
import { isApproved } from './ledger.js';
import { buildProvisionPlan, type IgnoredItem, type PlanInput, type Protocol } from './plan-builder.js';
import { buildProjectProfile, type DetectedCapability, type ProjectProfile } from './profile.js';
import { fileRequest } from './requests.js';
import { tokenScopeNote } from './token-scope.js';
import { builtinUnavailable } from './this-neo.js';

/** What the session record carries about capabilities (`provision` in meta.json). */
export interface ProvisionMeta {
  /** Everything detected, provisioned or not, with the evidence. */
  detected: DetectedCapability[];
  /** `<capability>:<item>` handed to the backend. */
  applied: string[];
  ignored: IgnoredItem[];
  tiers: Record<string, TrustTier>;
  /** Deferred T2/T3 capabilities: not in this session, their approval requested. */
  awaitingApproval: string[];
  tokenScopeNotes: string[];
  /** Whether detection came from the cached profile. */
  profileCached: boolean;
  /** Set once the transport reported what it did with the plan (acknowledge.ts): `applied` is then what it took. */
  acknowledged?: boolean;
}

export interface ProvisionInput {
  home: string;
  cwd: string;
  definitions: DefinitionSet;
  protocol: Protocol;
  sessionDir: string;
  sessionId?: string;
  env: NodeJS.ProcessEnv;
  sandbox?: PlanInput['sandbox'];
  fetchSkill?: PlanInput['fetchSkill'];
  neoCommand: PlanInput['neoCommand'];
  /**
   * The profile detected when the caller's run started (a flow): used as it is, the workspace at
   * `cwd` is not read for it. Absent, the project at `cwd` is detected now.
   */
  profile?: ProjectProfile;
  /** False for a dry run: no file written, no skill fetched, no request filed. */
  materialize?: boolean;
}

export async function resolveSessionProvision(
  input: ProvisionInput,
): Promise<{ plan: ProvisionPlan | undefined; meta: ProvisionMeta }> {
  const catalog = catalogEntries(input.definitions);
  const profile = input.profile ?? (await buildProjectProfile(input.home, input.cwd, catalog));
  const byId = new Map(catalog.map((entry) => [entry.id, entry]));
  const usable: CatalogEntry[] = [];
  const awaitingApproval: string[] = [];
  const tiers: Record<string, TrustTier> = {};
  const unavailable: IgnoredItem[] = [];
  for (const detected of profile.detected) {
    const entry = byId.get(detected.id);
    if (entry === undefined) continue;
    const why = entry.data.source.kind === 'builtin' ? builtinUnavailable(entry.id, input.home, input.cwd) : undefined;
    if (why !== undefined) {
      unavailable.push({ capability: entry.id, item: '*', reason: why });
      continue;
    }
    tiers[entry.id] = entry.data.trustTier;
    const identity = pinnedIdentity(entry.data);
    if (needsApproval(entry.data.trustTier) && !(await isApproved(input.home, entry.id, identity))) {
      awaitingApproval.push(entry.id);
      if (input.materialize !== false)
        await fileRequest(input.home, entry, identity, {
          project: profile.root,
          evidence: detected.evidence,
          ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        });
      continue;
    }
    usable.push(entry);
  }
  const built = await buildProvisionPlan({
    home: input.home,
    protocol: input.protocol,
    entries: usable,
    sessionDir: input.sessionDir,
    env: input.env,
    neoCommand: input.neoCommand,
    ...(input.sandbox === undefined ? {} : { sandbox: input.sandbox }),
    ...(input.fetchSkill === undefined ? {} : { fetchSkill: input.fetchSkill }),
    ...(input.materialize === undefined ? {} : { materialize: input.materialize }),
  });
  const appliedIds = new Set(built.applied.map((item) => item.slice(0, item.indexOf(':'))));
  const tokenScopeNotes = usable
    .filter((entry) => appliedIds.has(entry.id))
    .map(tokenScopeNote)
    .filter((note): note is string => note !== undefined);
  return {
    plan: built.plan,
    meta: {
      detected: profile.detected,
      applied: built.applied,
      ignored: [...unavailable, ...built.ignored],
      tiers,
      awaitingApproval,
      tokenScopeNotes,
      profileCached: profile.cached === true,
    },
  };
}
