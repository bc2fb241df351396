/**
 * Follows one session's live events: charges the ledger per completed turn, reports the current
 * tool and round for the live view, and watches for silence. With an idle timeout, no event for
 * that long calls `onStall` once.
 */
export class SessionWatch {
    rounds = 0;
    costUsd = 0;
    tokens = 0;
    #lastEventAt;
    #unsubscribe;
    #timer;
    #stalled = false;
    #context;
    constructor(sessions, sessionId, context, options) {
        this.#context = context;
        this.#lastEventAt = context.now();
        this.#unsubscribe = sessions.onSessionEvent((live) => {
            if (live.sessionId !== sessionId)
                return;
            this.#lastEventAt = context.now();
            this.#onEvent(live, options.maxRounds);
        });
        const idle = options.idleTimeoutMs;
        if (idle !== undefined) {
            this.#timer = setInterval(() => {
                const quiet = context.now() - this.#lastEventAt;
                if (quiet >= idle && !this.#stalled) {
                    this.#stalled = true;
                    options.onStall(quiet);
                }
            }, Math.max(20, Math.min(1000, Math.floor(idle / 4))));
            this.#timer.unref();
        }
    }
    get stalled() {
        return this.#stalled;
    }
    /** Time passes while neo itself works (a gate runs): that is not the agent being silent. */
    touch() {
        this.#lastEventAt = this.#context.now();
    }
    close() {
        if (this.#timer)
            clearInterval(this.#timer);
        this.#unsubscribe();
    }
    #onEvent(live, maxRounds) {
        const event = live.event;
        switch (event.type) {
            case 'tool_use':
                this.#context.progress({ tool: String(event.name), round: this.rounds + 1, ...(maxRounds === undefined ? {} : { maxRounds }) });
                return;
            case 'turn_complete': {
                const usage = (event.usage ?? {});
                const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
                const costUsd = typeof event.costUsd === 'number' ? event.costUsd : 0;
                this.rounds++;
                this.costUsd = Math.round((this.costUsd + costUsd) * 1e8) / 1e8;
                this.tokens += tokens;
                this.#context.charge({ turns: 1, tokens, costUsd });
                this.#context.progress({ round: this.rounds, costUsd: this.costUsd, ...(maxRounds === undefined ? {} : { maxRounds }) });
                return;
            }
            case 'started':
                if (typeof event.model === 'string')
                    this.#context.progress({ model: event.model });
                return;
        }
    }
}
