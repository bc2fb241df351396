import type { Budgets, Posture } from '../generated/common.js';
import { DEFAULT_MAX_POSTURE, minPosture, postureWithin } from '../posture/index.js';
import { durationMs } from '../util/duration.js';

/** The round cap when neither a request, a config nor a scope sets one. */
export const DEFAULT_MAX_ROUNDS = 20;

/** The session knobs of seed 004 §2–§3 that policies, personas and callers set. */
export interface SessionKnobs {
  maxPosture?: Posture;
  initialPosture?: Posture;
  maxRounds?: number;
  backend?: string;
  allowedTools?: string[];
  budgets?: Budgets;
  /** `bwrap`: every command, gate and agent CLI under it runs sandboxed (a requirement only tightens). */
  sandbox?: 'none' | 'bwrap';
}

/** Where an effective knob value came from (e.g. "policy standard", "persona reviewer", "owner policy"). */
export type KnobProvenance = Partial<Record<keyof SessionKnobs, string>>;

/** A backend pin that two sources disagree on: rejected, never silently resolved. */
export interface KnobConflict {
  knob: 'backend' | 'allowedTools';
  message: string;
}

/**
 * Merges knob layers narrow-only, first (widest) to last: postures and rounds take the minimum,
 * allowedTools intersect, budgets take each minimum, a backend pin must agree. A later layer can
 * never widen an earlier one; a value that would widen is ignored and reported in `widened`.
 */
export function narrowKnobs(layers: ReadonlyArray<{ source: string; knobs: SessionKnobs }>): {
  knobs: SessionKnobs;
  provenance: KnobProvenance;
  conflicts: KnobConflict[];
  widened: Array<{ knob: keyof SessionKnobs; source: string; value: unknown; kept: unknown }>;
} {
  const knobs: SessionKnobs = {};
  const provenance: KnobProvenance = {};
  const conflicts: KnobConflict[] = [];
  const widened: Array<{ knob: keyof SessionKnobs; source: string; value: unknown; kept: unknown }> = [];

  for (const { source, knobs: next } of layers) {
    for (const key of ['maxPosture', 'initialPosture'] as const) {
      const value = next[key];
      if (value === undefined) continue;
      const current = knobs[key];
      if (current === undefined || postureWithin(value, current)) {
        knobs[key] = value;
        provenance[key] = source;
      } else {
        widened.push({ knob: key, source, value, kept: current });
      }
    }
    if (next.maxRounds !== undefined) {
      if (knobs.maxRounds === undefined || next.maxRounds <= knobs.maxRounds) {
        knobs.maxRounds = next.maxRounds;
        provenance.maxRounds = source;
      } else {
        widened.push({ knob: 'maxRounds', source, value: next.maxRounds, kept: knobs.maxRounds });
      }
    }
    if (next.backend !== undefined) {
      if (knobs.backend !== undefined && knobs.backend !== next.backend) {
        conflicts.push({
          knob: 'backend',
          message: `${source} pins backend \`${next.backend}\` but ${provenance.backend} pins \`${knobs.backend}\``,
        });
      } else {
        knobs.backend = next.backend;
        provenance.backend ??= source;
      }
    }
    if (next.allowedTools !== undefined) {
      if (knobs.allowedTools === undefined) {
        knobs.allowedTools = [...next.allowedTools];
      } else {
        const allowed = new Set(knobs.allowedTools);
        knobs.allowedTools = next.allowedTools.filter((tool) => allowed.has(tool));
        if (knobs.allowedTools.length === 0) {
          conflicts.push({
            knob: 'allowedTools',
            message: `${source} allows none of the tools ${provenance.allowedTools} allows`,
          });
        }
      }
      provenance.allowedTools = source;
    }
    // Once a layer requires the sandbox, a later `none` would widen it.
    if (next.sandbox !== undefined) {
      if (knobs.sandbox === 'bwrap' && next.sandbox !== 'bwrap')
        widened.push({ knob: 'sandbox', source, value: next.sandbox, kept: knobs.sandbox });
      else if (knobs.sandbox !== 'bwrap') {
        knobs.sandbox = next.sandbox;
        provenance.sandbox = source;
      }
    }
    if (next.budgets !== undefined) {
      const merged: Record<string, unknown> = { ...knobs.budgets };
      for (const [key, value] of Object.entries(next.budgets)) {
        const current = merged[key];
        if (current === undefined) merged[key] = value;
        else if (typeof value === 'number' && typeof current === 'number' && value < current) merged[key] = value;
        else if (key === 'maxDuration' && durationMs(value) < durationMs(current)) merged[key] = value;
      }
      knobs.budgets = merged as Budgets;
      provenance.budgets = source;
    }
  }
  // The starting posture is a default: held down to the ceiling, the default one when no layer sets one.
  if (knobs.initialPosture !== undefined)
    knobs.initialPosture = minPosture(knobs.initialPosture, knobs.maxPosture ?? DEFAULT_MAX_POSTURE);
  return { knobs, provenance, conflicts, widened };
}
