/**
 * The round-history "diet" a driver sees in every turn_complete (seed 004 §1): a bounded,
 * pre-truncated digest the registry rebuilds on each read, so it survives the driver's own
 * transcript compaction. Answered clarifications and user guidance are pinned: never dropped,
 * however many rounds pass, so a compacted driver never re-asks an answered question.
 */

/** One entry of the digest, oldest first. */
export type RoundHistoryEntry =
  | { kind: 'round'; round: number; text: string; actions: string[] }
  | {
      kind: 'clarification';
      round: number;
      clarificationId: string;
      toolName: string;
      allow: boolean;
      reason?: string;
      pinned: true;
    }
  | { kind: 'user_guidance'; round: number; text: string; pinned: true };

export interface RoundHistory {
  entries: RoundHistoryEntry[];
  /** Older round digests left out (pinned entries are never left out). */
  omittedRounds: number;
}

/** The bounds of the digest. */
export const DIET_LIMITS = {
  rounds: 6,
  roundTextChars: 600,
  actionsPerRound: 12,
  actionChars: 160,
  pinnedTextChars: 1000,
} as const;

/** Collects rounds and pinned entries as a session runs. */
export class RoundHistoryLog {
  readonly #rounds: Array<Extract<RoundHistoryEntry, { kind: 'round' }>> = [];
  readonly #pinned: Array<Exclude<RoundHistoryEntry, { kind: 'round' }>> = [];
  #dropped = 0;

  /** Records a finished round (already truncated, so memory stays bounded too). */
  addRound(round: number, text: string, actions: readonly string[]): void {
    this.#rounds.push({
      kind: 'round',
      round,
      text: clip(text, DIET_LIMITS.roundTextChars),
      actions: clipActions(actions),
    });
    if (this.#rounds.length > DIET_LIMITS.rounds) {
      this.#rounds.shift();
      this.#dropped++;
    }
  }

  /** Pins an answered clarification. */
  pinClarification(
    round: number,
    entry: { clarificationId: string; toolName: string; allow: boolean; reason?: string },
  ): void {
    const pinned: Extract<RoundHistoryEntry, { kind: 'clarification' }> = {
      kind: 'clarification',
      round,
      clarificationId: entry.clarificationId,
      toolName: entry.toolName,
      allow: entry.allow,
      pinned: true,
    };
    if (entry.reason !== undefined && entry.reason !== '')
      pinned.reason = clip(entry.reason, DIET_LIMITS.pinnedTextChars);
    this.#pinned.push(pinned);
  }

  /** Pins guidance a person injected. */
  pinUserGuidance(round: number, text: string): void {
    this.#pinned.push({ kind: 'user_guidance', round, text: clip(text, DIET_LIMITS.pinnedTextChars), pinned: true });
  }

  /** The digest: pinned entries and the last rounds, in round order (pinned first within a round). */
  snapshot(): RoundHistory {
    const entries: RoundHistoryEntry[] = [...this.#pinned, ...this.#rounds];
    // A pinned entry recorded during round N sits before round N's digest.
    entries.sort((a, b) => a.round - b.round || rank(a) - rank(b));
    return { entries, omittedRounds: this.#dropped };
  }
}

function rank(entry: RoundHistoryEntry): number {
  return entry.kind === 'round' ? 1 : 0;
}

/** Keeps the head and the tail of a long text, marking the cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}

function clipActions(actions: readonly string[]): string[] {
  const clipped = actions.map((action) => clip(action, DIET_LIMITS.actionChars));
  if (clipped.length <= DIET_LIMITS.actionsPerRound) return clipped;
  const kept = clipped.slice(clipped.length - (DIET_LIMITS.actionsPerRound - 1));
  return [`… ${clipped.length - kept.length} earlier actions`, ...kept];
}
