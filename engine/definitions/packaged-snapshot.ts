import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeJsonAtomic } from '../util/atomic-file.js';
import type { AnyDefinition } from './definition.js';
import type { SourceSpan } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import { defined } from '../util/defined.js';

/**
 * The packaged layer never changes after install, yet parsing its YAML is most of a cold start.
 * `npm run build` validates it once and writes this snapshot; at run time a packaged file whose
 * digest matches its entry is restored from it instead of being parsed and validated again.
 */
export interface PackagedSnapshot {
  version: 1;
  entries: Record<string, SnapshotEntry>;
}

interface SnapshotEntry {
  kind: DefinitionKind;
  id: string;
  digest: string;
  /** Size and mtime of the file when the snapshot was taken: an unchanged file is not even read. */
  size: number;
  mtimeMs: number;
  data: unknown;
  body?: string;
  /** Relative to the package root. */
  idSpan: Omit<SourceSpan, 'file'>;
}

export const SNAPSHOT_FILE = join('dist', 'packaged-snapshot.json');

/** Reads the snapshot; undefined when absent or unreadable (then everything is parsed). */
export function readPackagedSnapshot(packagedRoot: string): PackagedSnapshot | undefined {
  try {
    const snapshot = JSON.parse(readFileSync(join(packagedRoot, SNAPSHOT_FILE), 'utf8')) as PackagedSnapshot;
    return snapshot.version === 1 ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The snapshot entry for `file`, when the file is unchanged since the snapshot: same size and
 * mtime (cheap: one stat), or else the same content digest (`digestOf` reads and hashes it).
 */
export function snapshotEntry(
  snapshot: PackagedSnapshot | undefined,
  packagedRoot: string,
  file: string,
  digestOf: () => string | undefined,
): SnapshotEntry | undefined {
  const entry = snapshot?.entries[relative(packagedRoot, file)];
  if (entry === undefined) return undefined;
  try {
    const info = statSync(file);
    if (info.size === entry.size && info.mtimeMs === entry.mtimeMs) return entry;
  } catch {
    return undefined;
  }
  return digestOf() === entry.digest ? entry : undefined;
}

/** Writes the snapshot of a clean packaged layer. */
export async function writePackagedSnapshot(
  packagedRoot: string,
  definitions: readonly AnyDefinition[],
): Promise<number> {
  const entries: Record<string, SnapshotEntry> = {};
  for (const d of definitions) {
    if (d.layer !== 'packaged') continue;
    const { file: _file, ...idSpan } = d.idSpan;
    const info = statSync(d.file);
    entries[relative(packagedRoot, d.file)] = {
      kind: d.kind,
      id: d.id,
      digest: d.digest,
      size: info.size,
      mtimeMs: info.mtimeMs,
      data: d.data,
      ...defined({ body: d.body }),
      idSpan,
    };
  }
  // Part of the install, read by every user: not a private store file.
  await writeJsonAtomic(join(packagedRoot, SNAPSHOT_FILE), { version: 1, entries } satisfies PackagedSnapshot, {
    private: false,
  });
  return Object.keys(entries).length;
}
