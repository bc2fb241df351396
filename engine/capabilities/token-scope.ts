/**
 * The token-scope caveat (seed 004 §9): a capability whose MCP servers authenticate with a token
 * from the environment is exactly as safe as that token's scope, and some vendor servers (GitHub,
 * Stripe) have no URL-level read-only switch. neo cannot enforce the scope; it says so on the
 * approval request and on every session record the capability was applied to.
 */
import type { CatalogEntry } from './catalog.js';

export function tokenScopeNote(entry: CatalogEntry): string | undefined {
  const vars = entry.data.authEnv ?? [];
  if (vars.length === 0) return undefined;
  return `${entry.id}: what it may do is exactly what the token in ${vars.join(', ')} allows; neo cannot enforce its scope — bind a read-only (or restricted test-mode) token`;
}
