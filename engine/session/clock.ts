/** Timers and time for the idle timeout; tests pass a simulated clock. */
export interface SessionClock {
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

export const realClock: SessionClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};
