import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJsonAtomic } from '../util/atomic-file.js';
import type { Pins, ProjectTrust } from './pins.js';

interface TrustFile {
  version: 1;
  /** `pins` absent: written before `neo trust` pinned anything (nothing privileged applies). */
  repos: Record<string, { trustedAt: string; pins?: Pins }>;
}

/**
 * The owner's record of trusted project folders (NEO_HOME/trust.json), each with the digest of
 * every project file's privileged content when it was trusted (pins.ts). A project layer's
 * privileged fields apply only when its repo is listed here and they are what was pinned.
 */
export class TrustStore {
  readonly #path: string;

  constructor(neoHome: string) {
    this.#path = join(neoHome, 'trust.json');
  }

  // Synchronous: every command that loads definitions reads it, and it is usually absent.
  #read(): TrustFile {
    if (statSync(this.#path, { throwIfNoEntry: false }) === undefined) return { version: 1, repos: {} };
    try {
      const parsed = JSON.parse(readFileSync(this.#path, 'utf8')) as TrustFile;
      if (parsed && typeof parsed.repos === 'object') return parsed;
    } catch {
      // A missing or corrupt trust file trusts nothing, which is the safe reading.
    }
    return { version: 1, repos: {} };
  }

  async isTrusted(repoRoot: string): Promise<boolean> {
    const file = this.#read();
    return Object.hasOwn(file.repos, canonical(repoRoot));
  }

  /** How far the project at `repoRoot` is trusted; `repo` is `repoRoot` as given (pin keys are relative to it). */
  async projectTrust(repoRoot: string): Promise<ProjectTrust> {
    const repos = this.#read().repos;
    const key = canonical(repoRoot);
    if (!Object.hasOwn(repos, key)) return { trusted: false };
    const entry = repos[key]!;
    const pins = entry.pins !== null && typeof entry.pins === 'object' ? entry.pins : undefined;
    return { trusted: true, repo: repoRoot, pins };
  }

  async trust(repoRoot: string, pins: Pins, now = new Date()): Promise<string> {
    const file = this.#read();
    const key = canonical(repoRoot);
    file.repos[key] = { trustedAt: now.toISOString(), pins };
    await writeJsonAtomic(this.#path, file);
    return key;
  }

  async revoke(repoRoot: string): Promise<boolean> {
    const file = this.#read();
    const key = canonical(repoRoot);
    if (!Object.hasOwn(file.repos, key)) return false;
    delete file.repos[key];
    await writeJsonAtomic(this.#path, file);
    return true;
  }

  async list(): Promise<Array<{ repo: string; trustedAt: string }>> {
    const file = this.#read();
    return Object.entries(file.repos).map(([repo, entry]) => ({ repo, trustedAt: entry.trustedAt }));
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}
