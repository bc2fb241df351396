import { createHash } from 'node:crypto';
/** A short, stable content hash (sha256, hex). */
export function contentHash(...parts) {
    const hash = createHash('sha256');
    for (const part of parts) {
        hash.update(part);
        hash.update('\0');
    }
    return hash.digest('hex');
}
