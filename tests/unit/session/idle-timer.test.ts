import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { IdleTimer } from '../../../engine/session/idle-timer.js';

function timer(idleMs = 1000) {
  const clock = new SimulatedClock();
  const watch = { lastAt: 0, now: () => clock.now() };
  const fired: number[] = [];
  const idle = new IdleTimer(clock, watch, idleMs, () => fired.push(clock.now()));
  return { clock, watch, fired, idle };
}

describe('the idle timer', () => {
  it('signals once the idle time has passed since the last activity, not since it was armed', () => {
    const { clock, watch, fired, idle } = timer();
    idle.start();
    clock.increment(600);
    watch.lastAt = clock.now();
    clock.increment(600);
    expect(fired).toEqual([]);
    clock.increment(400);
    expect(fired).toEqual([1600]);
  });

  it('keeps watching after a signal (a later silence is signalled again) and stops for good', () => {
    const { clock, watch, fired, idle } = timer();
    idle.start();
    clock.increment(1000);
    expect(fired).toEqual([1000]);
    watch.lastAt = clock.now() + 500;
    clock.increment(500);
    clock.increment(1000);
    expect(fired).toEqual([1000, 2500]);
    idle.stop();
    clock.increment(10_000);
    expect(fired).toEqual([1000, 2500]);
  });

  it('is never late after activity resumes while it waits a whole period', () => {
    const { clock, watch, fired, idle } = timer(1000);
    idle.start();
    clock.increment(1000); // signalled (e.g. while the driver thinks); re-armed for 2000
    watch.lastAt = 1100; // the driver guided at 1100: a stall is due at 2100, not 3000
    clock.increment(1000);
    expect(fired).toEqual([1000]);
    clock.increment(100);
    expect(fired).toEqual([1000, 2100]);
  });
});
