/**
 * The weekly refresh of `neo serve` (seed 004 §9): checks every pinned source for a newer
 * version or commit and writes the report to NEO_HOME/capabilities/updates.json (what
 * `neo capabilities check-updates --cached` and the log show). Failure-soft, network-only, no
 * model call; it never edits a pin. A pass that finds newer sources sends the owner one notice listing
 * them (`neo serve` publishes it as the `capability_updates` event: the web UI's desktop notice). On by default (`0 5 * * 0`, NEO_CAPABILITY_REFRESH_CRON to
 * change it); NEO_CAPABILITY_REFRESH=off turns it off.
 */
import { join } from 'node:path';
import { Cron } from 'croner';
import { writeJsonAtomic } from '../util/atomic-file.js';
import type { CatalogEntry } from './catalog.js';
import { checkForUpdates, type UpdateFetchOptions, type UpdateFinding } from './updates.js';

export const DEFAULT_REFRESH_CRON = '0 5 * * 0';

export function updatesReportPath(home: string): string {
  return join(home, 'capabilities', 'updates.json');
}

/** The fetch options from the environment: base URLs (a mirror, or a test's fixture server) and a GitHub token. */
export function updateFetchOptions(env: NodeJS.ProcessEnv): UpdateFetchOptions {
  return {
    ...(env.NEO_NPM_REGISTRY_URL ? { npmUrl: env.NEO_NPM_REGISTRY_URL } : {}),
    ...(env.NEO_GITHUB_API_URL ? { githubUrl: env.NEO_GITHUB_API_URL } : {}),
    ...(env.GITHUB_TOKEN ? { githubToken: env.GITHUB_TOKEN } : {}),
  };
}

/** What a pass that found newer sources tells the owner, once per pass (the server's notice). */
export interface UpdatesNotice {
  checkedAt: string;
  updates: Array<Pick<UpdateFinding, 'id' | 'pinned' | 'latest'>>;
}

/** One pass: checks and writes the report; resolves with the findings, never rejects. */
export async function refreshPass(
  home: string,
  entries: () => readonly CatalogEntry[],
  options: UpdateFetchOptions,
  log?: (event: string, fields: Record<string, unknown>) => void,
  notify?: (notice: UpdatesNotice) => void,
): Promise<UpdateFinding[]> {
  try {
    const findings = await checkForUpdates(entries(), options);
    const checkedAt = new Date().toISOString();
    await writeJsonAtomic(updatesReportPath(home), { checkedAt, findings });
    const updates = findings.filter((f) => f.status === 'update');
    if (updates.length > 0)
      notify?.({ checkedAt, updates: updates.map(({ id, pinned, latest }) => ({ id, pinned, latest })) });
    log?.(updates.length > 0 ? 'capability_updates_available' : 'capability_updates_none', {
      updates: updates.map((f) => `${f.id}: ${f.pinned} -> ${f.latest}`),
      failed: findings.filter((f) => f.status === 'failed').map((f) => f.id),
    });
    return findings;
  } catch (error) {
    log?.('capability_refresh_failed', { error: error instanceof Error ? error.message : String(error) });
    return [];
  }
}

/** Schedules the weekly pass; undefined when it is turned off or its cron is invalid (logged). */
export function scheduleCapabilityRefresh(
  home: string,
  entries: () => readonly CatalogEntry[],
  env: NodeJS.ProcessEnv,
  log: (event: string, fields: Record<string, unknown>) => void,
  notify?: (notice: UpdatesNotice) => void,
): { stop(): void; next(): Date | null } | undefined {
  if (['off', '0', 'false', 'no'].includes((env.NEO_CAPABILITY_REFRESH ?? '').trim().toLowerCase())) return undefined;
  const cron = env.NEO_CAPABILITY_REFRESH_CRON ?? DEFAULT_REFRESH_CRON;
  try {
    const job = new Cron(cron, { protect: true, unref: true }, async () => {
      await refreshPass(home, entries, updateFetchOptions(env), log, notify);
    });
    return { stop: () => job.stop(), next: () => job.nextRun() };
  } catch (error) {
    log('capability_refresh_schedule_invalid', { cron, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
