/**
 * Track records: short lines distilled from past outcomes that a driver reads next to each
 * backend in list-backends (seed 004 §7), e.g.
 *   codex: 7 runs, 71% success, avg 4.2 rounds, last failure: the check fails (3d ago)
 *     codex · gpt-5.1-codex: 4 runs, 75% success, avg 3.0 rounds
 * with a sub-line per model that has at least two runs. Pure: `now` is passed in.
 */
import type { HarnessOutcomeRecord } from './outcome.js';

/** A model needs this many runs before it gets its own line. */
export const MODEL_LINE_MIN_RUNS = 2;

/** Counts for one backend (or one backend and model). */
export interface TrackStats {
  runs: number;
  successes: number;
  /** successes / runs. */
  successRate: number;
  avgRounds: number;
  lastFailure?: { reason: string; at: string };
}

/** Stats per backend id. */
export function trackStats(records: readonly HarnessOutcomeRecord[]): Map<string, TrackStats> {
  const groups = new Map<string, HarnessOutcomeRecord[]>();
  for (const r of records) groups.set(r.backendId, [...(groups.get(r.backendId) ?? []), r]);
  return new Map([...groups].map(([id, rs]) => [id, statsOf(rs)]));
}

export function statsOf(records: readonly HarnessOutcomeRecord[]): TrackStats {
  const successes = records.filter((r) => r.outcome === 'success').length;
  const rounds = records.reduce((n, r) => n + r.rounds, 0);
  const failures = records
    .filter((r) => r.outcome !== 'success')
    .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : 1));
  const last = failures.at(-1);
  return {
    runs: records.length,
    successes,
    successRate: records.length === 0 ? 0 : successes / records.length,
    avgRounds: records.length === 0 ? 0 : rounds / records.length,
    ...(last === undefined ? {} : { lastFailure: { reason: last.failureReason ?? last.outcome, at: last.recordedAt } }),
  };
}

/** The lines for one backend; undefined when it has no history. */
export function trackRecordLines(
  records: readonly HarnessOutcomeRecord[],
  backendId: string,
  now: number,
): string[] | undefined {
  const mine = records.filter((r) => r.backendId === backendId);
  if (mine.length === 0) return undefined;
  const lines = [`${backendId}: ${summary(statsOf(mine), now, true)}`];
  const models = new Map<string, HarnessOutcomeRecord[]>();
  for (const r of mine) if (r.model !== undefined) models.set(r.model, [...(models.get(r.model) ?? []), r]);
  for (const [model, rs] of [...models].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (rs.length >= MODEL_LINE_MIN_RUNS) lines.push(`  ${backendId} · ${model}: ${summary(statsOf(rs), now, false)}`);
  }
  return lines;
}

function summary(stats: TrackStats, now: number, withFailure: boolean): string {
  const parts = [
    `${stats.runs} run${stats.runs === 1 ? '' : 's'}`,
    `${Math.round(stats.successRate * 100)}% success`,
    `avg ${stats.avgRounds.toFixed(1)} rounds`,
  ];
  if (withFailure && stats.lastFailure !== undefined)
    parts.push(`last failure: ${clip(stats.lastFailure.reason)} (${ago(now - Date.parse(stats.lastFailure.at))})`);
  return parts.join(', ');
}

/** `42s ago` style, coarse: seconds, minutes, hours, days. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
