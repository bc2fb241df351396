/** A schema duration (seconds as a number, or a string with ms/s/m/h) in milliseconds; NaN when unreadable. Pure. */
export function durationMs(value: unknown): number {
  if (typeof value === 'number') return value * 1000;
  if (typeof value !== 'string') return Number.NaN;
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(value);
  if (!match) return Number.NaN;
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * scale;
}

/** `durationMs`, or undefined for an absent value. */
export function optionalDurationMs(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = durationMs(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A short human duration: 850ms, 3.2s, 4m05s, 1h02m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, '0')}s`;
  const minutes = Math.round(totalSeconds / 60);
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
