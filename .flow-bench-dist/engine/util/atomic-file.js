import { open, readFile, rename, rm, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
/**
 * Replaces `path` atomically: write a sibling temp file, fsync it, rename over the target.
 * A reader sees either the old content or the new, never a torn file.
 */
export async function writeFileAtomic(path, content) {
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temp, 'w');
    try {
        await handle.writeFile(content);
        await handle.sync();
    }
    finally {
        await handle.close();
    }
    try {
        await rename(temp, path);
    }
    catch (error) {
        await rm(temp, { force: true });
        throw error;
    }
}
/** Writes `value` as pretty JSON atomically. */
export function writeJsonAtomic(path, value) {
    return writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
/** Reads and parses a JSON file; a missing or unparsable file is `null`, never a throw. */
export async function readJsonOrNull(path) {
    let text;
    try {
        text = await readFile(path, 'utf8');
    }
    catch {
        return null;
    }
    try {
        return JSON.parse(text);
    }
    catch {
        return null;
    }
}
