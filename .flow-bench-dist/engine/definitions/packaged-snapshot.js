import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeJsonAtomic } from '../util/atomic-file.js';
export const SNAPSHOT_FILE = join('dist', 'packaged-snapshot.json');
/** Reads the snapshot; undefined when absent or unreadable (then everything is parsed). */
export function readPackagedSnapshot(packagedRoot) {
    try {
        const snapshot = JSON.parse(readFileSync(join(packagedRoot, SNAPSHOT_FILE), 'utf8'));
        return snapshot.version === 1 ? snapshot : undefined;
    }
    catch {
        return undefined;
    }
}
/** The snapshot entry for `file`, when its content still has the recorded digest. */
export function snapshotEntry(snapshot, packagedRoot, file, digest) {
    const entry = snapshot?.entries[relative(packagedRoot, file)];
    return entry !== undefined && entry.digest === digest ? entry : undefined;
}
/** Writes the snapshot of a clean packaged layer. */
export async function writePackagedSnapshot(packagedRoot, definitions) {
    const entries = {};
    for (const d of definitions) {
        if (d.layer !== 'packaged')
            continue;
        const { file: _file, ...idSpan } = d.idSpan;
        entries[relative(packagedRoot, d.file)] = { kind: d.kind, id: d.id, digest: d.digest, data: d.data, ...(d.body === undefined ? {} : { body: d.body }), idSpan };
    }
    await writeJsonAtomic(join(packagedRoot, SNAPSHOT_FILE), { version: 1, entries });
    return Object.keys(entries).length;
}
