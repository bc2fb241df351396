import { TurnUsage, type SessionLiveEvent } from '../../session/index.js';
import type { Usage } from '../../transports/index.js';
import type { AgentContext, SessionPort } from './driver.js';

type WatchOptions = { idleTimeoutMs?: number; maxRounds?: number; onStall: (idleMs: number) => void };

/**
 * Follows one session's live events: charges the ledger as the backend reports spending (each
 * model call's usage while a turn streams, the rest when it completes), reports the current
 * tool, round and the backend's notices for the live view, and watches for silence. With an idle
 * timeout, no event for that long calls `onStall` once. It listens from before the session
 * starts (an agent may report before `start` returns) and follows the session named by attach().
 */
export class SessionWatch {
  rounds = 0;
  costUsd = 0;
  tokens = 0;
  #lastEventAt: number;
  #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stalled = false;
  #sessionId: string | undefined;
  #early: SessionLiveEvent[] = [];
  #options: WatchOptions | undefined;
  readonly #turn = new TurnUsage();
  readonly #context: AgentContext;

  constructor(sessions: SessionPort, context: AgentContext) {
    this.#context = context;
    this.#lastEventAt = context.now();
    this.#unsubscribe = sessions.onSessionEvent((live) => {
      if (this.#sessionId === undefined) {
        this.#early.push(live);
        return;
      }
      if (live.sessionId !== this.#sessionId) return;
      this.#lastEventAt = context.now();
      this.#onEvent(live, this.#options?.maxRounds);
    });
  }

  /** Follows `sessionId` from now on, after the events it already sent. */
  attach(sessionId: string, options: WatchOptions): void {
    this.#sessionId = sessionId;
    this.#options = options;
    this.#lastEventAt = this.#context.now();
    for (const live of this.#early.splice(0)) if (live.sessionId === sessionId) this.#onEvent(live, options.maxRounds);
    const idle = options.idleTimeoutMs;
    if (idle !== undefined) {
      this.#timer = setInterval(
        () => {
          const quiet = this.#context.now() - this.#lastEventAt;
          if (quiet >= idle && !this.#stalled) {
            this.#stalled = true;
            options.onStall(quiet);
          }
        },
        Math.max(20, Math.min(1000, Math.floor(idle / 4))),
      );
      this.#timer.unref();
    }
  }

  get stalled(): boolean {
    return this.#stalled;
  }

  /** Time passes while neo itself works (a gate runs): that is not the agent being silent. */
  touch(): void {
    this.#lastEventAt = this.#context.now();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#unsubscribe();
  }

  #charge(turns: number, spent: { tokens: number; costUsd: number }): void {
    this.costUsd = Math.round((this.costUsd + spent.costUsd) * 1e8) / 1e8;
    this.tokens += spent.tokens;
    this.#context.charge({ turns, ...spent });
  }

  #onEvent(live: SessionLiveEvent, maxRounds: number | undefined): void {
    const event = live.event as { type: string; [key: string]: unknown };
    switch (event.type) {
      case 'tool_use':
        this.#context.progress({
          tool: String(event.name),
          round: this.rounds + 1,
          ...(maxRounds === undefined ? {} : { maxRounds }),
        });
        return;
      case 'usage':
        this.#charge(0, this.#turn.during(figures(event)));
        this.#context.progress({ costUsd: this.costUsd });
        return;
      case 'turn_complete':
        this.rounds++;
        this.#charge(1, this.#turn.end(figures(event)));
        this.#context.progress({
          round: this.rounds,
          costUsd: this.costUsd,
          ...(maxRounds === undefined ? {} : { maxRounds }),
        });
        return;
      case 'started':
        if (typeof event.model === 'string') this.#context.progress({ model: event.model });
        return;
      case 'error':
        // A notice (the CLI retrying a failed model request, a denied ask): shown as it happens.
        // A failure that ends the turn reaches the step's result instead (and the next turn's
        // spending starts from nothing).
        if (event.transient !== true) this.#turn.reset();
        else if (typeof event.message === 'string') this.#context.progress({ notice: event.message });
        return;
    }
  }
}

/** An event's usage and cost, read without trusting its shape. */
function figures(event: { [key: string]: unknown }): { usage?: Usage; costUsd?: number } {
  return {
    ...(typeof event.usage === 'object' && event.usage !== null ? { usage: event.usage as Usage } : {}),
    ...(typeof event.costUsd === 'number' ? { costUsd: event.costUsd } : {}),
  };
}
