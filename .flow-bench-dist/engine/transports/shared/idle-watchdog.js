/**
 * Fires once when nothing happened for `timeoutMs` while armed. The session arms it while a
 * turn runs and no permission answer is owed (a CLI waiting on neo is not stalled).
 */
export class IdleWatchdog {
    #timeoutMs;
    #onIdle;
    #timer;
    #armed = false;
    constructor(timeoutMs, onIdle) {
        this.#timeoutMs = timeoutMs;
        this.#onIdle = onIdle;
    }
    /** Arms (or disarms) the watchdog; arming restarts the countdown. */
    set armed(on) {
        if (on === this.#armed)
            return;
        this.#armed = on;
        this.#reset();
    }
    get armed() {
        return this.#armed;
    }
    /** Activity seen: restart the countdown. */
    touch() {
        if (this.#armed)
            this.#reset();
    }
    dispose() {
        this.#armed = false;
        this.#reset();
    }
    #reset() {
        if (this.#timer !== undefined)
            clearTimeout(this.#timer);
        this.#timer = undefined;
        if (!this.#armed)
            return;
        this.#timer = setTimeout(() => {
            this.#timer = undefined;
            if (this.#armed)
                this.#onIdle();
        }, this.#timeoutMs);
        this.#timer.unref();
    }
}
