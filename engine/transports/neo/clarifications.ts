/**
 * The posture gate's open asks of one session: each raised as a `clarify` event and settled by
 * an answer, or closed unanswered when its turn is interrupted or ends — recorded as a
 * `gate_decision` by the interrupt (as the CLI transports record theirs) and denied.
 */
import { randomBytes } from 'node:crypto';
import type { Posture } from '../../definitions/index.js';
import type { ToolAsk } from '../../posture/index.js';
import { NeoError } from '../../util/errors.js';
import type { AgentEvent } from '../types.js';

export type Decision = { allow: boolean; reason?: string };

export class Clarifications {
  /** Asks waiting for answer(): what was asked, and how to settle it. */
  readonly #open = new Map<string, { ask: ToolAsk; respond: (decision: Decision) => void }>();

  constructor(
    private readonly backendId: string,
    private readonly emit: (event: AgentEvent) => void,
    private readonly posture: () => Posture,
  ) {}

  /**
   * Raises a clarify event and waits for answer(). An interrupt or a stop (the turn's signal)
   * closes it unanswered: recorded, and denied.
   */
  ask(ask: ToolAsk, input: Record<string, unknown>, signal: AbortSignal): Promise<Decision> {
    const clarificationId = `cl_${randomBytes(8).toString('hex')}`;
    return new Promise<Decision>((resolve) => {
      const onAbort = (): void => this.#closeUnanswered(clarificationId, 'the turn was interrupted');
      this.#open.set(clarificationId, {
        ask,
        respond: (decision) => {
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'clarify', clarificationId, toolName: ask.toolName, input, ask });
    });
  }

  answer(clarificationId: string, decision: Decision): void {
    const open = this.#open.get(clarificationId);
    if (open === undefined) {
      throw new NeoError(
        'TRANSPORT_UNKNOWN_CLARIFICATION',
        `${this.backendId} has no pending clarification ${clarificationId}`,
        { hint: 'it was already answered, withdrawn by an interrupt, or belongs to another session' },
      );
    }
    this.#open.delete(clarificationId);
    open.respond(decision);
  }

  /** Asks still open when a turn failed belong to it: closed unanswered, like an interrupt's. */
  withdrawAll(): void {
    for (const clarificationId of [...this.#open.keys()]) this.#closeUnanswered(clarificationId, 'the turn ended');
  }

  /** An open ask closed without an answer is on record like any answer, then denied; the agent is told why. */
  #closeUnanswered(clarificationId: string, told: string): void {
    const open = this.#open.get(clarificationId);
    if (open === undefined) return;
    this.#open.delete(clarificationId);
    this.emit({
      type: 'gate_decision',
      clarificationId,
      toolName: open.ask.toolName,
      ask: open.ask,
      allow: false,
      reason: 'cancelled',
      posture: this.posture(),
      by: 'interrupt',
    });
    open.respond({ allow: false, reason: told });
  }
}
