import { describe, expect, it } from 'vitest';
import {
  guardedMetrics,
  METRIC_FAMILIES,
  noopMetrics,
  PrometheusSink,
  SESSION_METRICS,
  SPECIALIST_METRICS,
  teeMetrics,
  MemoryMetrics,
} from '../../../engine/observability/index.js';

describe('metrics sinks', () => {
  it('declares every family of seed 004 §8 once', () => {
    const names = METRIC_FAMILIES.map((f) => f.name).sort();
    expect(names).toEqual([...Object.values(SESSION_METRICS), ...Object.values(SPECIALIST_METRICS)].sort());
  });

  it('the Prometheus sink records declared families and drops anything else', async () => {
    const sink = new PrometheusSink();
    sink.increment(SESSION_METRICS.started, { backend: 'script' });
    sink.increment(SESSION_METRICS.started, { backend: 'script' }, 2);
    sink.observe(SESSION_METRICS.rounds, 3);
    sink.increment('code_session_made_up_total', {});
    sink.increment(SESSION_METRICS.started, { backend: 'x', extra: 'y' });
    sink.increment(SESSION_METRICS.started, {});
    sink.observe(SESSION_METRICS.rounds, Number.NaN);
    expect(sink.dropped).toBe(4);
    const text = await sink.text();
    expect(text).toContain('code_session_started_total{backend="script"} 3');
    expect(text).toContain('code_session_rounds_count 1');
    expect(text).not.toContain('made_up');
  });

  it('a throwing sink never reaches the caller; no sink is the no-op', () => {
    const broken = guardedMetrics({
      increment() {
        throw new Error('down');
      },
      observe() {
        throw new Error('down');
      },
    });
    expect(() => broken.increment('x')).not.toThrow();
    expect(() => broken.observe('x', 1)).not.toThrow();
    expect(guardedMetrics(undefined)).toBe(noopMetrics);
    const memory = new MemoryMetrics();
    const both = teeMetrics(memory, {
      increment: () => {
        throw new Error('x');
      },
      observe() {},
    });
    both.increment('a', { k: 'v' });
    expect(memory.count('a', { k: 'v' })).toBe(1);
  });
});
