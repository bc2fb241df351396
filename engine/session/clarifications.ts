/**
 * A live session's clarifications: the agent's questions waiting on the driver, and the deny
 * reasons owed to its next turn. Shared by the session's two sides: the agent raises a question
 * (agent-events.ts), the driver answers it (live-session.ts). The notification queue is told as
 * each question settles, so read-turn never hands out one that no longer waits.
 */
import type { ToolAsk } from '../posture/index.js';
import type { AgentEvent } from '../transports/index.js';
import type { SessionAnnotation } from './events.js';
import type { NotificationQueue } from './notifications.js';

/** A question the agent asked, as the driver's answer records it. */
export interface PendingClarification {
  toolName: string;
  ask?: ToolAsk;
}

export class Clarifications {
  readonly #pending = new Map<string, PendingClarification>();
  readonly #carryForward: string[] = [];
  readonly #queue: NotificationQueue;

  constructor(queue: NotificationQueue) {
    this.#queue = queue;
  }

  /** The question `clarificationId` while it waits; an answer is accepted only for one of these. */
  get(clarificationId: string): PendingClarification | undefined {
    return this.#pending.get(clarificationId);
  }

  /** The agent asked: the question waits until it is answered, settled without the driver, or dropped. */
  raise(clarificationId: string, pending: PendingClarification): void {
    this.#pending.set(clarificationId, pending);
  }

  /** The question was answered (by the driver or without it): it no longer waits. Undefined when it did not. */
  settle(clarificationId: string): PendingClarification | undefined {
    const pending = this.#pending.get(clarificationId);
    if (!this.#pending.delete(clarificationId)) return undefined;
    this.#queue.answered(clarificationId);
    return pending;
  }

  /** Drops every waiting question (an interrupt or a turn's end aborts the turn that raised them). */
  drop(): void {
    this.#pending.clear();
    this.#queue.dropClarifications();
  }

  /** A deny's reason, told to the agent with the next guidance it gets. */
  carryDenial(toolName: string, reason: string): void {
    this.#carryForward.push(`Your request to use ${toolName} was denied: ${reason.trim()}`);
  }

  /** The deny reasons owed to the next turn, taken (each is told once). */
  takeDenials(): string[] {
    return this.#carryForward.splice(0);
  }
}

/**
 * neo's own answer, recorded as the clarification it settled: answered by `posture` (with the
 * posture it decided under), or closed unanswered by an `interrupt` or the `cli`.
 */
export function gateRecord(event: Extract<AgentEvent, { type: 'gate_decision' }>): SessionAnnotation {
  return {
    type: 'clarification',
    clarificationId: event.clarificationId,
    toolName: event.toolName,
    decision: { allow: event.allow, reason: event.reason },
    by: event.by ?? 'posture',
    ...(event.by === undefined ? { posture: event.posture } : {}),
    ask: event.ask,
  };
}
