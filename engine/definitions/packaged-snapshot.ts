import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.js';
import type { DefinitionSet, KnownSetHash } from './definition-set.js';
import type { SourceSpan } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import { defined } from '../util/defined.js';
import { referenceKey } from './references.js';

/**
 * The packaged layer never changes after install, yet parsing its YAML is most of a cold start.
 * `npm run build` validates it once and writes this snapshot; at run time a packaged file whose
 * digest matches its entry is restored from it instead of being parsed and validated again.
 * The build also stores what a load of the packaged layer alone works out from the whole set: its
 * hash, and each definition's reference key (references.ts). A set or a definition whose input is
 * the same text gets the same answer without the work (hashing loads `node:crypto`; checking a
 * persona's allow rules parses each command): the snapshot is written only for a clean layer,
 * so a definition whose key matches had no reference problem.
 */
export interface PackagedSnapshot {
  version: 1;
  entries: Record<string, SnapshotEntry>;
  /** The hash of the set of the packaged definitions alone, with the text it hashed. */
  set?: KnownSetHash;
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
  /** Its reference key in the packaged set (`referenceKey`), checked clean at build time. */
  references?: string;
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

/** Writes the snapshot of a clean packaged layer (`set`: the packaged definitions alone, no problem found). */
export async function writePackagedSnapshot(packagedRoot: string, set: DefinitionSet): Promise<number> {
  const entries: Record<string, SnapshotEntry> = {};
  for (const d of set.all()) {
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
      references: referenceKey(set, d),
    };
  }
  const snapshot: PackagedSnapshot = { version: 1, entries, set: set.knownHash };
  // Read by every start-up: compact, and ASCII (a `—` in a persona's body would make the whole
  // text a two-byte string in V8, twice the bytes to decode and parse). Part of the install,
  // read by every user: not a private store file.
  const text = JSON.stringify(snapshot).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  await writeFileAtomic(join(packagedRoot, SNAPSHOT_FILE), text, { private: false });
  return Object.keys(entries).length;
}
