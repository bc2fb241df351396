/**
 * The capability catalog as the pipeline reads it: every entry of the definition set (an
 * untrusted project's entries never reach it: definitions/privileged.ts drops them whole), with
 * its id, its layer and the identity an owner approval is bound to.
 */
import type { Capability, DefinitionSet } from '../definitions/index.js';
import { contentHash } from '../util/content-hash.js';

export type TrustTier = Capability['trustTier'];

/** One catalog entry with where it came from. */
export interface CatalogEntry {
  id: string;
  layer: string;
  file: string;
  data: Capability;
}

/** Every capability of a definition set, by id order. */
export function catalogEntries(set: DefinitionSet): CatalogEntry[] {
  return set
    .list('capability')
    .map((d) => ({ id: d.id, layer: d.layer, file: d.file, data: d.data }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** T2 (a vendor executable run locally) and T3 (a third party's) run only once the owner approved them. */
export function needsApproval(tier: TrustTier): boolean {
  return tier === 'T2' || tier === 'T3';
}

/** The pinned source in one line: `npm @playwright/mcp@0.0.83`, `github prisma/skills@a5cb379b`. */
export function sourceLabel(entry: Capability, short = true): string {
  const s = entry.source;
  if (s.kind === 'npm') return `npm ${s.package ?? '?'}@${s.version ?? '?'}`;
  if (s.kind === 'github')
    return `github ${s.repo ?? '?'}@${short ? (s.commitSha ?? '').slice(0, 8) : (s.commitSha ?? '')}`;
  if (s.kind === 'remote') return `remote ${s.url ?? ''}`;
  return 'builtin';
}

/**
 * What an approval is bound to: the pinned source and everything the entry would run (its MCP
 * servers and skills). Bumping a pin — or changing the command an entry starts — is a new
 * identity, so the owner is asked again.
 */
export function pinnedIdentity(entry: Capability): string {
  const runs = JSON.stringify({
    source: entry.source,
    mcpServers: entry.provides.mcpServers ?? {},
    skills: entry.provides.skills ?? [],
    network: entry.network ?? false,
  });
  return `${sourceLabel(entry, false)} #${contentHash(runs).slice(0, 16)}`;
}
