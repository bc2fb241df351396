/**
 * Newer versions and commits for the catalog's pinned sources (`neo capabilities check-updates`,
 * and weekly under `neo serve`). Data only: it reports, it never edits a pin — bumping one stays a
 * reviewed catalog edit, and a bumped pin asks the owner again (ledger.ts). The registry and the
 * GitHub API are reached through an injected fetch and base URLs (tests serve them on 127.0.0.1).
 */
import { sourceLabel, type CatalogEntry } from './catalog.js';

export interface UpdateFinding {
  id: string;
  source: string;
  pinned: string;
  /** The newest version or commit found; undefined when the check failed. */
  latest?: string;
  status: 'current' | 'update' | 'failed' | 'unpinned';
  detail?: string;
}

export interface UpdateFetchOptions {
  fetchImpl?: typeof fetch;
  /** Default https://registry.npmjs.org. */
  npmUrl?: string;
  /** Default https://api.github.com. */
  githubUrl?: string;
  githubToken?: string;
  timeoutMs?: number;
}

export async function checkForUpdates(
  entries: readonly CatalogEntry[],
  options: UpdateFetchOptions = {},
): Promise<UpdateFinding[]> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const getJson = async (url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const response = await fetchImpl(url, {
      headers,
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const npm = (options.npmUrl ?? 'https://registry.npmjs.org').replace(/\/+$/, '');
  const github = (options.githubUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const findings: UpdateFinding[] = [];
  for (const entry of entries) {
    const s = entry.data.source;
    const base = { id: entry.id, source: sourceLabel(entry.data) };
    try {
      if (s.kind === 'npm' && s.package !== undefined && s.version !== undefined) {
        const doc = await getJson(`${npm}/${s.package.replace('/', '%2F')}`, {
          accept: 'application/vnd.npm.install-v1+json',
        });
        const latest = String((doc['dist-tags'] as Record<string, unknown> | undefined)?.latest ?? '');
        if (latest === '') throw new Error(`${s.package} has no latest dist-tag`);
        findings.push({ ...base, pinned: s.version, latest, status: latest === s.version ? 'current' : 'update' });
      } else if (s.kind === 'github' && s.repo !== undefined && s.commitSha !== undefined) {
        const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
        if (options.githubToken !== undefined) headers.authorization = `Bearer ${options.githubToken}`;
        const path = s.path === undefined ? '' : `&path=${encodeURIComponent(s.path)}`;
        const commits = (await getJson(`${github}/repos/${s.repo}/commits?per_page=1${path}`, headers)) as unknown;
        const latest = Array.isArray(commits)
          ? String((commits[0] as Record<string, unknown> | undefined)?.sha ?? '')
          : '';
        if (!/^[0-9a-f]{40}$/.test(latest)) throw new Error(`${s.repo} answered no commit`);
        findings.push({ ...base, pinned: s.commitSha, latest, status: latest === s.commitSha ? 'current' : 'update' });
      } else
        findings.push({
          ...base,
          pinned: s.kind,
          status: 'unpinned',
          detail: `${s.kind} sources have no version to check`,
        });
    } catch (error) {
      const pinned = s.version ?? s.commitSha ?? s.kind;
      findings.push({
        ...base,
        pinned,
        status: 'failed',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return findings;
}
