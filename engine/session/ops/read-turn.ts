import type { ReadTurnInput, ReadTurnResult, TurnDiff } from '../contract.js';
import { METRICS } from '../metrics.js';
import type { Notification } from '../notifications.js';
import type { RoundHistory } from '../round-history.js';
import { liveSession, type OpContext } from './context.js';
import { defined } from '../../util/defined.js';

/** Blocks until the session's next notification and maps it to exactly one result kind. */
export async function readTurn(ctx: OpContext, input: ReadTurnInput): Promise<ReadTurnResult> {
  const session = await liveSession(ctx, input.sessionId);
  const notification = await session.next(ctx.signal);
  const result = toReadTurnResult(notification, session.history.snapshot(), input.includeDiff === true);
  ctx.metrics.increment(METRICS.readTurn, { kind: result.kind });
  ctx.log.info('code_session_read_turn', { sessionId: session.id, kind: result.kind });
  return result;
}

/**
 * The tested switch from notification to result: turn_complete gains the round history, every
 * terminal kind keeps its turnDiff, and the unified diff stays out unless asked for.
 */
export function toReadTurnResult(n: Notification, history: RoundHistory, includeDiff: boolean): ReadTurnResult {
  switch (n.kind) {
    case 'clarification':
      return {
        kind: 'clarification',
        clarificationId: n.clarificationId,
        toolName: n.toolName,
        input: n.input,
        ...defined({ ask: n.ask }),
      };
    case 'turn_complete': {
      const result: ReadTurnResult = { kind: 'turn_complete', actions: n.actions, text: n.text, roundHistory: history };
      if (n.numTurns !== undefined) result.numTurns = n.numTurns;
      if (n.costUsd !== undefined) result.costUsd = n.costUsd;
      return withDiff(result, n.turnDiff, includeDiff);
    }
    case 'ended':
      return withDiff({ kind: 'ended', ok: n.ok, text: n.text }, n.turnDiff, includeDiff);
    case 'error': {
      const result: ReadTurnResult = { kind: 'error', message: n.message };
      if (n.code !== undefined) result.code = n.code;
      if (n.stalled === true) result.stalled = true;
      if (n.transient !== undefined) result.transient = n.transient;
      return withDiff(result, n.turnDiff, includeDiff);
    }
    case 'max_rounds':
      return withDiff({ kind: 'max_rounds', ok: true, text: n.text, rounds: n.rounds }, n.turnDiff, includeDiff);
  }
}

function withDiff<R extends Exclude<ReadTurnResult, { kind: 'clarification' }>>(
  result: R,
  diff: TurnDiff | undefined,
  includeDiff: boolean,
): R {
  if (diff === undefined) return result;
  const { unifiedDiff, truncated, ...rest } = diff;
  const turnDiff: TurnDiff = { ...rest };
  if (includeDiff && unifiedDiff !== undefined) {
    turnDiff.unifiedDiff = unifiedDiff;
    if (truncated === true) turnDiff.truncated = true;
  }
  result.turnDiff = turnDiff;
  return result;
}
