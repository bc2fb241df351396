/**
 * The rules decider's backend choice (seed 004 §2 steps 1–2): never an unavailable backend,
 * never one that cannot express the posture the session starts in or that lacks a capability
 * the persona requires; a pin (the persona's, its policy's or the caller's) is the only choice;
 * otherwise the persona's preference order, with the track record breaking ties. Pure.
 */
import type { Posture } from '../definitions/index.js';
import type { BackendListing } from '../session/index.js';
import { FailureError } from '../util/errors.js';
import type { ClarifyRules as PersonaRules } from '../posture/index.js';
import type { StartRejection } from './decisions.js';

export interface BackendChoiceInput {
  listing: readonly BackendListing[];
  rules: Pick<PersonaRules, 'prefer' | 'require'>;
  /** The scope's backend pin. */
  pin?: string;
  /** The posture the session starts in: the backend must express it. */
  posture: Posture;
  /** The scope limits tools: prefer backends that enforce a tool list. */
  wantsToolLimit: boolean;
  /** Backends whose start was refused in this dispatch. */
  rejections: readonly StartRejection[];
  /** A backend's success rate in [0, 1] from past outcomes; undefined without history. */
  successRate?: (backendId: string) => number | undefined;
}

export interface BackendChoice {
  backend: string;
  why: string;
}

/** A backend with no history ranks between a good record and a bad one. */
const NO_HISTORY = 0.5;

export function chooseBackend(input: BackendChoiceInput): BackendChoice {
  const excluded: string[] = [];
  const rejected = new Set(input.rejections.map((r) => r.backend));
  const fits = (listing: BackendListing): boolean => {
    const why = unfit(listing, input, rejected);
    if (why !== undefined) excluded.push(`${listing.id}: ${why}`);
    return why === undefined;
  };

  if (input.pin !== undefined) {
    const pinned = input.listing.find((l) => l.id === input.pin);
    if (pinned === undefined) throw noBackend(`the pinned backend \`${input.pin}\` is not in list-backends`, []);
    if (!fits(pinned)) throw noBackend(`the pinned backend \`${input.pin}\` cannot run this task`, excluded);
    return { backend: pinned.id, why: `pinned to ${pinned.id}` };
  }

  let candidates = input.listing.filter(fits);
  if (input.wantsToolLimit) {
    const enforcing = candidates.filter((l) => l.descriptor.honorsAllowedTools);
    if (enforcing.length > 0) candidates = enforcing;
  }
  if (candidates.length === 0) throw noBackend('no available backend fits this persona', excluded);

  const prefer = input.rules.prefer ?? [];
  const rank = (id: string) => (prefer.includes(id) ? prefer.indexOf(id) : prefer.length);
  const score = (id: string) => input.successRate?.(id) ?? NO_HISTORY;
  const order = new Map(input.listing.map((l, i) => [l.id, i]));
  candidates.sort(
    (a, b) => rank(a.id) - rank(b.id) || score(b.id) - score(a.id) || order.get(a.id)! - order.get(b.id)!,
  );
  const chosen = candidates[0]!;
  const reasons = [
    rank(chosen.id) < prefer.length
      ? `preference ${rank(chosen.id) + 1} of ${prefer.length}`
      : prefer.length > 0
        ? 'no preferred backend fits'
        : 'no preference given',
  ];
  const rate = input.successRate?.(chosen.id);
  if (rate !== undefined) reasons.push(`track record ${Math.round(rate * 100)}% success`);
  if (excluded.length > 0) reasons.push(`passed over ${excluded.join('; ')}`);
  return { backend: chosen.id, why: `${chosen.id}: ${reasons.join(', ')}` };
}

function unfit(listing: BackendListing, input: BackendChoiceInput, rejected: ReadonlySet<string>): string | undefined {
  const d = listing.descriptor;
  if (!listing.availability.available)
    return `unavailable (${listing.availability.status}${listing.availability.detail ? `: ${listing.availability.detail}` : ''})`;
  if (rejected.has(listing.id)) return 'its start was refused';
  if (!d.postures.includes(input.posture)) return `cannot express posture ${input.posture}`;
  const require = input.rules.require ?? {};
  if (require.clarifySupport === true && !d.clarifySupport) return 'cannot ask permission mid-turn (clarifySupport)';
  if (require.granularity !== undefined && d.granularity !== require.granularity)
    return `granularity ${d.granularity}, not ${require.granularity}`;
  if (require.resume === true && d.resume?.supported !== true) return 'cannot resume';
  return undefined;
}

function noBackend(message: string, excluded: readonly string[]): FailureError {
  return new FailureError('PERSONA_NO_BACKEND', excluded.length > 0 ? `${message} (${excluded.join('; ')})` : message, {
    hint: "run `neo backends list` to see availability; pin one with --backend, or relax the persona's rules.require",
  });
}
