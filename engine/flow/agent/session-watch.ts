import type { SessionLiveEvent } from '../../session/index.js';
import type { AgentContext, SessionPort } from './driver.js';

/**
 * Follows one session's live events: charges the ledger per completed turn, reports the current
 * tool and round for the live view, and watches for silence. With an idle timeout, no event for
 * that long calls `onStall` once.
 */
export class SessionWatch {
  rounds = 0;
  costUsd = 0;
  tokens = 0;
  #lastEventAt: number;
  #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stalled = false;
  readonly #context: AgentContext;

  constructor(
    sessions: SessionPort,
    sessionId: string,
    context: AgentContext,
    options: { idleTimeoutMs?: number; maxRounds?: number; onStall: (idleMs: number) => void },
  ) {
    this.#context = context;
    this.#lastEventAt = context.now();
    this.#unsubscribe = sessions.onSessionEvent((live) => {
      if (live.sessionId !== sessionId) return;
      this.#lastEventAt = context.now();
      this.#onEvent(live, options.maxRounds);
    });
    const idle = options.idleTimeoutMs;
    if (idle !== undefined) {
      this.#timer = setInterval(
        () => {
          const quiet = context.now() - this.#lastEventAt;
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
      case 'turn_complete': {
        const usage = (event.usage ?? {}) as { inputTokens?: number; outputTokens?: number };
        const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
        const costUsd = typeof event.costUsd === 'number' ? event.costUsd : 0;
        this.rounds++;
        this.costUsd = Math.round((this.costUsd + costUsd) * 1e8) / 1e8;
        this.tokens += tokens;
        this.#context.charge({ turns: 1, tokens, costUsd });
        this.#context.progress({
          round: this.rounds,
          costUsd: this.costUsd,
          ...(maxRounds === undefined ? {} : { maxRounds }),
        });
        return;
      }
      case 'started':
        if (typeof event.model === 'string') this.#context.progress({ model: event.model });
        return;
    }
  }
}
