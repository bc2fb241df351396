/**
 * How the chat answers a permission ask in place: yes, no, or "always" — and what "always" may
 * mean. The chat never invents a permission of its own: "always" raises the session's posture
 * (through the set-posture op, which the ceiling bounds) to the least posture whose gate allows
 * this kind of ask, and is offered only when that posture lies within the session's ceiling and
 * the backend can express it. Nothing here can lift a session above its ceiling.
 */
import {
  POSTURE_GATE,
  POSTURES,
  postureRank,
  postureWithin,
  type Posture,
  type ToolAsk,
} from '../../engine/posture/index.js';

export type AskReply = { allow: true; always: boolean } | { allow: false; reason?: string };

/** The posture "always" would move to, or undefined when the ceiling (or the backend) leaves none. */
export function alwaysPosture(
  ask: ToolAsk | undefined,
  current: Posture,
  ceiling: Posture,
  expressible: readonly Posture[],
): Posture | undefined {
  if (ask === undefined || ask.unreadable !== undefined) return undefined;
  return POSTURES.find(
    (p) =>
      postureRank(p) > postureRank(current) &&
      postureWithin(p, ceiling) &&
      expressible.includes(p) &&
      POSTURE_GATE[p][ask.kind] === 'allow',
  );
}

/**
 * Reads one typed answer: y/yes, n/no (optionally `n: why`), a/always when offered. Anything
 * else is undefined, and the question is asked again.
 */
export function parseAskReply(line: string, alwaysOffered: boolean): AskReply | undefined {
  const text = line.trim();
  const deny = /^(n|no)(?:\s*[:,-]?\s+(.+))?$/i.exec(text);
  if (deny !== null) return deny[2] === undefined ? { allow: false } : { allow: false, reason: deny[2].trim() };
  if (/^(y|yes)$/i.test(text)) return { allow: true, always: false };
  if (alwaysOffered && /^(a|always)$/i.test(text)) return { allow: true, always: true };
  return undefined;
}
