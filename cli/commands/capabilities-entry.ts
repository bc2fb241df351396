import type { CatalogEntry } from '../../engine/capabilities/index.js';
import { didYouMean } from '../../engine/util/did-you-mean.js';
import { UsageError } from '../../engine/util/errors.js';

/** The catalog entry `id`, or CAPABILITY_UNKNOWN with the nearest id. */
export function capabilityEntry(catalog: readonly CatalogEntry[], id: string): CatalogEntry {
  const entry = catalog.find((e) => e.id === id);
  if (entry !== undefined) return entry;
  const ids = catalog.map((e) => e.id);
  const near = didYouMean(id, ids);
  throw new UsageError('CAPABILITY_UNKNOWN', `no capability \`${id}\` in the catalog`, {
    hint: near ? `did you mean \`${near}\`?` : `the catalog: ${ids.join(', ')} (neo capabilities list)`,
  });
}
