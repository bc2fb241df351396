/**
 * A project's profile: which catalog entries its files call for, and on what evidence. Cached in
 * NEO_HOME/project-profiles/<hash of the project path>.json under a key made of the catalog's
 * rules and the hash of every input read (project-inputs.ts), so an unchanged repository costs
 * one bounded read of those inputs and no rule evaluation.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import { contentHash } from '../util/content-hash.js';
import type { CatalogEntry, TrustTier } from './catalog.js';
import { readProjectInputs } from './project-inputs.js';
import { matchRule } from './rules.js';

export interface DetectedCapability {
  id: string;
  tier: TrustTier;
  /** What matched, one line per rule that did. */
  evidence: string[];
}

export interface ProjectProfile {
  root: string;
  /** The cache key: catalog rules + inputs hash. */
  key: string;
  detected: DetectedCapability[];
  builtAt: string;
  /** Whether this profile came from the cache. */
  cached?: boolean;
}

const PROFILE_VERSION = 1;

/** Where the profile of `root` is cached. */
export function profilePath(home: string, root: string): string {
  return join(home, 'project-profiles', `${contentHash(root).slice(0, 32)}.json`);
}

/** Detects the capabilities `root` calls for, from the cache when nothing it reads changed. */
export async function buildProjectProfile(
  home: string,
  cwd: string,
  catalog: readonly CatalogEntry[],
): Promise<ProjectProfile> {
  const root = await realpath(cwd);
  const rules = catalog.flatMap((entry) => entry.data.detect);
  const inputs = await readProjectInputs(root, rules);
  const catalogKey = JSON.stringify(catalog.map((e) => [e.id, e.data.trustTier, e.data.detect]));
  const key = contentHash(String(PROFILE_VERSION), catalogKey, inputs.hash);
  const path = profilePath(home, root);
  const cached = await readJsonOrNull<ProjectProfile>(path).catch(() => null);
  if (cached !== null && cached.key === key && cached.root === root && Array.isArray(cached.detected))
    return { ...cached, cached: true };

  const detected: DetectedCapability[] = [];
  for (const entry of catalog) {
    const evidence = entry.data.detect
      .map((rule) => matchRule(rule, inputs))
      .filter((e): e is string => e !== undefined);
    if (evidence.length > 0) detected.push({ id: entry.id, tier: entry.data.trustTier, evidence });
  }
  const profile: ProjectProfile = { root, key, detected, builtAt: new Date().toISOString() };
  // A failed cache write costs the next start a rule pass, never this one its profile.
  await writeJsonAtomic(path, profile).catch(() => undefined);
  return { ...profile, cached: false };
}
