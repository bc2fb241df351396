import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeJsonAtomic } from '../util/atomic-file.js';
/**
 * The owner's record of trusted project folders (NEO_HOME/trust.json). A project layer's
 * privileged fields apply only when its repo is listed here.
 */
export class TrustStore {
    #path;
    constructor(neoHome) {
        this.#path = join(neoHome, 'trust.json');
    }
    async #read() {
        try {
            const parsed = JSON.parse(await readFile(this.#path, 'utf8'));
            if (parsed && typeof parsed.repos === 'object')
                return parsed;
        }
        catch {
            // A missing or corrupt trust file trusts nothing, which is the safe reading.
        }
        return { version: 1, repos: {} };
    }
    async isTrusted(repoRoot) {
        const file = await this.#read();
        return Object.hasOwn(file.repos, canonical(repoRoot));
    }
    async trust(repoRoot, now = new Date()) {
        const file = await this.#read();
        const key = canonical(repoRoot);
        file.repos[key] = { trustedAt: now.toISOString() };
        await writeJsonAtomic(this.#path, file);
        return key;
    }
    async revoke(repoRoot) {
        const file = await this.#read();
        const key = canonical(repoRoot);
        if (!Object.hasOwn(file.repos, key))
            return false;
        delete file.repos[key];
        await writeJsonAtomic(this.#path, file);
        return true;
    }
    async list() {
        const file = await this.#read();
        return Object.entries(file.repos).map(([repo, entry]) => ({ repo, trustedAt: entry.trustedAt }));
    }
}
function canonical(path) {
    try {
        return realpathSync(resolve(path));
    }
    catch {
        return resolve(path);
    }
}
