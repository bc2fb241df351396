/** Walks a folder tree for the pure-Node search tools, skipping `.git` and `node_modules`. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
const SKIP = new Set(['.git', 'node_modules']);
/** Every file below `root` as a `/`-separated path relative to it, in sorted order. */
export async function* walkFiles(root, prefix = '') {
    let entries;
    try {
        entries = await readdir(join(root, prefix), { withFileTypes: true });
    }
    catch {
        return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
        const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isDirectory()) {
            if (!SKIP.has(entry.name))
                yield* walkFiles(root, rel);
        }
        else if (entry.isFile()) {
            yield rel;
        }
    }
}
