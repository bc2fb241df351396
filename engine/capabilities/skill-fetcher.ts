/**
 * Skills from GitHub, at the catalog entry's exact commit (never a branch): a walk of the
 * Contents API (`GET /repos/<repo>/contents/<path>?ref=<sha>`), every file's bytes from its own
 * Contents answer (never a `download_url` on another host). Size-capped, no symbolic links or
 * submodules, no name that could leave the skill's folder. The fetch function and the API's base
 * URL are injected: tests serve fixtures on 127.0.0.1, the binary reads NEO_GITHUB_API_URL.
 */
import { FailureError } from '../util/errors.js';

/** One file of a skill, relative to the skill's folder. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

/** Fetches the files of `path` in `repo` at `commit`. */
export type SkillFetcher = (repo: string, commit: string, path: string) => Promise<SkillFile[]>;

export const SKILL_MAX_BYTES = 2 * 1024 * 1024;
export const SKILL_MAX_FILES = 300;
const MAX_DEPTH = 8;

export class SkillFetchError extends FailureError {}

export interface GithubFetcherOptions {
  /** Default https://api.github.com. */
  baseUrl?: string;
  token?: string;
  fetchImpl?: typeof fetch;
  /** Per request. */
  timeoutMs?: number;
}

export function githubSkillFetcher(options: GithubFetcherOptions = {}): SkillFetcher {
  const base = (options.baseUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const fetchImpl = options.fetchImpl ?? fetch;
  const get = async (repo: string, path: string, commit: string): Promise<unknown> => {
    const url = `${base}/repos/${repo}/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${commit}`;
    const response = await fetchImpl(url, {
      headers: {
        accept: 'application/vnd.github+json',
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    if (!response.ok) throw fail(`GET ${url} answered ${response.status}`);
    return response.json();
  };
  return async (repo, commit, root) => {
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw fail(`not a GitHub owner/name: ${repo}`);
    if (!/^[0-9a-f]{40}$/.test(commit)) throw fail(`${repo}: a skill is fetched at an exact commit, not ${commit}`);
    const files: SkillFile[] = [];
    let total = 0;
    const walk = async (path: string, rel: string, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH) throw fail(`${repo}/${path}: deeper than ${MAX_DEPTH} folders`);
      const listing = await get(repo, path, commit);
      if (!Array.isArray(listing)) throw fail(`${repo}/${path} is not a folder at ${commit.slice(0, 8)}`);
      for (const raw of listing as Array<Record<string, unknown>>) {
        const name = String(raw.name ?? '');
        if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name) || raw.path !== `${path}/${name}`)
          throw fail(`${repo}/${path}: an entry named ${JSON.stringify(raw.name)} would leave the skill's folder`);
        const child = rel === '' ? name : `${rel}/${name}`;
        if (raw.type === 'dir') await walk(`${path}/${name}`, child, depth + 1);
        else if (raw.type === 'file') {
          const file = (await get(repo, `${path}/${name}`, commit)) as Record<string, unknown>;
          if (file.encoding !== 'base64' || typeof file.content !== 'string')
            throw fail(`${repo}/${path}/${name}: no base64 content in the Contents answer`);
          const bytes = Buffer.from(file.content, 'base64');
          total += bytes.length;
          if (total > SKILL_MAX_BYTES) throw fail(`${repo}/${root}: larger than ${SKILL_MAX_BYTES} bytes`);
          if (files.length >= SKILL_MAX_FILES) throw fail(`${repo}/${root}: more than ${SKILL_MAX_FILES} files`);
          files.push({ path: child, bytes });
        } else
          throw fail(`${repo}/${path}/${name} is a ${String(raw.type)}: a skill holds plain files and folders only`);
      }
    };
    await walk(root.replace(/^\/+|\/+$/g, ''), '', 0);
    return files;
  };
}

function fail(message: string): SkillFetchError {
  return new SkillFetchError('CAPABILITY_SKILL_FETCH', message, {
    hint: 'the skill is left out of this session; check the entry (its repo, commit and path) or the network',
  });
}
