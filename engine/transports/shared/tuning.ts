import type { StartSessionOptions } from '../types.js';

/** Timeouts every CLI adapter honours; each can be set through StartSessionOptions.options. */
export interface Tuning {
  /** A turn with no output from the CLI for this long fails with TRANSPORT_IDLE_TIMEOUT. */
  idleTimeoutMs: number;
  /** The startup handshake must finish within this. */
  startTimeoutMs: number;
  /** SIGTERM → SIGKILL grace when stopping. */
  killGraceMs: number;
  /** A CLI that has failed to reach its model provider for this long, retrying, has its turn failed. */
  unreachableGiveUpMs: number;
}

export const DEFAULT_TUNING: Tuning = {
  idleTimeoutMs: 10 * 60_000,
  startTimeoutMs: 60_000,
  killGraceMs: 3_000,
  unreachableGiveUpMs: 60_000,
};

/** Reads each Tuning key (`idleTimeoutMs` …) from the options bag (positive numbers only). */
export function readTuning(options: StartSessionOptions): Tuning {
  const bag = options.options ?? {};
  const pick = (key: keyof Tuning): number => {
    const value = bag[key];
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_TUNING[key];
  };
  return {
    idleTimeoutMs: pick('idleTimeoutMs'),
    startTimeoutMs: pick('startTimeoutMs'),
    killGraceMs: pick('killGraceMs'),
    unreachableGiveUpMs: pick('unreachableGiveUpMs'),
  };
}

/** 400 → "0.4s", 60000 → "60s": durations in messages. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds < 10 ? Math.round(seconds * 10) / 10 : Math.round(seconds)}s`;
}
