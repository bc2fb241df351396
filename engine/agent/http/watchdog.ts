/**
 * One timer for the deadlines of every request in flight: the wait for response headers and the
 * idle time between body reads. A timer per deadline would be made and cleared twice per model
 * call, and each costs more than the rest of what a call does between its request and its
 * response; here a call only joins and leaves a set. The interval runs while anything is watched
 * and stops at the first tick that finds nothing, so back-to-back calls reuse it. It never keeps
 * the process alive: a request in flight does that through its socket.
 *
 * Each watch is checked every `periodMs` at most (the interval runs at the smallest period
 * watched), so a deadline fires at most one period late, and never early: a check only ever
 * compares the clock with a time that has passed.
 */

export interface Watch {
  /** How often the watch needs checking (a fraction of its timeout). */
  readonly periodMs: number;
  /** Called on every tick while watched, with the current time (ms since the epoch). */
  check(now: number): void;
}

const watched = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;
let period = Infinity;
/** The longest delay a Node timer takes (a longer one would fire after 1 ms). */
const MAX_PERIOD_MS = 2 ** 31 - 1;

/** Watches `watch` until the returned function is called. */
export function startWatch(watch: Watch): () => void {
  watched.add(watch);
  if (timer === undefined || watch.periodMs < period) run(Math.min(period, watch.periodMs));
  return () => {
    watched.delete(watch);
  };
}

function run(periodMs: number): void {
  if (timer !== undefined) clearInterval(timer);
  period = Math.min(periodMs, MAX_PERIOD_MS);
  timer = setInterval(tick, period);
  timer.unref();
}

function tick(): void {
  if (watched.size === 0) {
    clearInterval(timer);
    timer = undefined;
    period = Infinity;
    return;
  }
  const now = Date.now();
  for (const watch of watched) watch.check(now);
}
