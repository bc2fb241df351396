/**
 * The idle timeout's single timer for one session. It fires at the first moment the agent could
 * have been silent for `idleMs` (its last activity + idleMs) and then tells the machine, whose
 * `idleElapsed` guard decides whether that is a stall (only `starting` and `running` can stall).
 * Re-arming from the shared activity watch, rather than once per state entry, keeps turns free of
 * timer churn: a chatty agent or a quick turn → guide cycle costs no timer work at all.
 */
import type { SessionClock } from './clock.js';
import type { ActivityWatch } from './machine.js';

export class IdleTimer {
  readonly #clock: SessionClock;
  readonly #watch: ActivityWatch;
  readonly #idleMs: number;
  readonly #onIdle: () => void;
  #handle: unknown;
  #stopped = false;

  constructor(clock: SessionClock, watch: ActivityWatch, idleMs: number, onIdle: () => void) {
    this.#clock = clock;
    this.#watch = watch;
    this.#idleMs = idleMs;
    this.#onIdle = onIdle;
  }

  start(): void {
    if (!this.#stopped && this.#handle === undefined) this.#arm(this.#watch.lastAt + this.#idleMs - this.#watch.now());
  }

  stop(): void {
    this.#stopped = true;
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  #arm(ms: number): void {
    this.#handle = this.#clock.setTimeout(() => this.#fire(), Math.max(0, ms));
    // A watchdog, not work: it must not keep a process alive that would otherwise exit.
    (this.#handle as { unref?: () => void } | undefined)?.unref?.();
  }

  #fire(): void {
    this.#handle = undefined;
    if (this.#stopped) return;
    const left = this.#watch.lastAt + this.#idleMs - this.#watch.now();
    if (left > 0) return this.#arm(left);
    this.#onIdle();
    // Waiting on the driver is not idleness, and a stalled session waits for activity: check
    // again a whole period later (any activity in between moves the deadline, see above).
    if (!this.#stopped) this.#arm(this.#idleMs);
  }
}
