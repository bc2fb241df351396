import { outsideRepository } from './containment.js';
import { discoverTable, projectFolders } from './discover.js';
import { loadDefinitionFile } from './load-file.js';
import { pinKey, privilegedDigest, type Pins } from './pins.js';
import { defined } from '../util/defined.js';

/**
 * What `neo trust` records for a repository: the privileged digest of each project-layer file
 * that has privileged content, read now, keyed by its path in the repository. A file that does
 * not load (a syntax or schema error) is not pinned: it applies nothing now, and once fixed its
 * privileged parts wait for the next `neo trust`.
 */
export async function pinProject(repo: string): Promise<Pins> {
  const pins: Record<string, string> = {};
  for (const entry of discoverTable(projectFolders(repo))) {
    if (outsideRepository(entry.file, repo) !== undefined) continue;
    const load = await loadDefinitionFile(entry.file, {
      kind: entry.kind,
      layer: 'project',
      trusted: true,
      ...defined({ defaultId: entry.defaultId }),
    });
    if (load.definition === undefined) continue;
    const digest = privilegedDigest(entry.kind, load.definition.data as Record<string, unknown>);
    if (digest !== undefined) pins[pinKey(repo, entry.file)] = digest;
  }
  return pins;
}
