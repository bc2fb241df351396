/**
 * The queue between a session's event pump and read-turn. Each notification is consumed by one
 * read; a terminal one becomes sticky (every later read returns it); a clarification stays the
 * answer to read-turn until it is answered.
 */
import type { ToolAsk } from '../posture/index.js';
import type { TurnDiff } from './contract.js';

/** What read-turn maps to a result kind (the turn_complete round history is added at read time). */
export type Notification =
  | { kind: 'turn_complete'; text: string; actions: string[]; numTurns?: number; costUsd?: number; turnDiff?: TurnDiff }
  | { kind: 'clarification'; clarificationId: string; toolName: string; input: unknown; ask?: ToolAsk }
  | { kind: 'ended'; ok: boolean; text: string; turnDiff?: TurnDiff }
  | { kind: 'error'; message: string; code?: string; stalled?: true; transient?: boolean; turnDiff?: TurnDiff }
  | { kind: 'max_rounds'; ok: true; text: string; rounds: number; turnDiff?: TurnDiff };

export class NotificationQueue {
  #queue: Notification[] = [];
  #waiters: Array<(n: Notification) => void> = [];
  #sticky: Notification | undefined;
  #unanswered: Array<Extract<Notification, { kind: 'clarification' }>> = [];

  /** Hands `n` to the oldest waiting reader, or queues it. */
  push(n: Notification): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) this.#deliver(n, waiter);
    else this.#queue.push(n);
  }

  /** Makes `n` the answer to every read once the queue is drained. */
  setSticky(n: Notification): void {
    this.#sticky = n;
    if (this.#queue.length === 0) for (const waiter of this.#waiters.splice(0)) waiter(n);
  }

  /** A clarification was answered: stop returning it. */
  answered(clarificationId: string): void {
    this.#unanswered = this.#unanswered.filter((n) => n.clarificationId !== clarificationId);
    this.#queue = this.#queue.filter((n) => n.kind !== 'clarification' || n.clarificationId !== clarificationId);
  }

  /** Forgets every unanswered clarification (the turn they belonged to was aborted or ended). */
  dropClarifications(): void {
    this.#unanswered = [];
    this.#queue = this.#queue.filter((n) => n.kind !== 'clarification');
  }

  /**
   * The next notification: queued, else the sticky or unanswered one, else the next to arrive.
   * An aborted wait leaves the queue untouched, so a reader that went away (a CLI interrupted
   * with Ctrl-C) never swallows the notification the next reader should get.
   */
  next(signal?: AbortSignal): Promise<Notification> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(this.#track(queued));
    if (this.#sticky !== undefined) return Promise.resolve(this.#sticky);
    const unanswered = this.#unanswered[0];
    if (unanswered !== undefined) return Promise.resolve(unanswered);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter = (n: Notification) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(n);
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Resolves every waiting reader with `n` (the session is going away). */
  close(n: Notification): void {
    this.#sticky = n;
    for (const waiter of this.#waiters.splice(0)) waiter(n);
  }

  #deliver(n: Notification, waiter: (n: Notification) => void): void {
    waiter(this.#track(n));
  }

  #track(n: Notification): Notification {
    if (n.kind === 'clarification' && !this.#unanswered.some((u) => u.clarificationId === n.clarificationId))
      this.#unanswered.push(n);
    return n;
  }
}
