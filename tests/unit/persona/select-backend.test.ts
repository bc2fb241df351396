import { describe, expect, test } from 'vitest';
import { chooseBackend, type BackendChoiceInput } from '../../../engine/persona/index.js';
import { listing } from '../../fixtures/persona/listing.js';

const base = (over: Partial<BackendChoiceInput> = {}): BackendChoiceInput => ({
  listing: [listing('claude-code'), listing('codex'), listing('script', { honorsAllowedTools: false })],
  rules: {},
  posture: 'default',
  wantsToolLimit: false,
  rejections: [],
  ...over,
});

describe('chooseBackend (rules select)', () => {
  test('the preference order wins among backends that fit', () => {
    expect(chooseBackend(base({ rules: { prefer: ['codex', 'claude-code'] } }))).toEqual({
      backend: 'codex',
      why: 'codex: preference 1 of 2',
    });
  });

  test('never an unavailable backend', () => {
    const choice = chooseBackend(
      base({
        listing: [listing('codex', {}, false), listing('claude-code')],
        rules: { prefer: ['codex', 'claude-code'] },
      }),
    );
    expect(choice).toEqual({
      backend: 'claude-code',
      why: 'claude-code: preference 2 of 2, passed over codex: unavailable (missing: codex not found)',
    });
  });

  test('a pinned backend that is unavailable is an error, not a fallback', () => {
    expect(() =>
      chooseBackend(base({ listing: [listing('codex', {}, false), listing('claude-code')], pin: 'codex' })),
    ).toThrow('the pinned backend `codex` cannot run this task (codex: unavailable (missing: codex not found))');
  });

  test('requirements filter: clarifySupport, granularity, resume, and the start posture', () => {
    const l = [
      listing('a', { clarifySupport: false }),
      listing('b', { granularity: 'turn' }),
      listing('c', { postureMap: { plan: {}, acceptEdits: {} } }),
      listing('d'),
    ];
    expect(
      chooseBackend(base({ listing: l, rules: { require: { clarifySupport: true, granularity: 'stream' } } })).backend,
    ).toBe('d');
    expect(() =>
      chooseBackend(
        base({ listing: l.slice(0, 3), rules: { require: { clarifySupport: true, granularity: 'stream' } } }),
      ),
    ).toThrow(
      'no available backend fits this persona (a: cannot ask permission mid-turn (clarifySupport); b: granularity turn, not stream; c: cannot express posture default)',
    );
    expect(() => chooseBackend(base({ listing: [listing('x')], rules: { require: { resume: true } } }))).toThrow(
      /x: cannot resume/,
    );
  });

  test('the track record breaks ties; no history ranks between good and bad', () => {
    const rates: Record<string, number> = { 'claude-code': 0.2, codex: 0.9 };
    const pick = (ids: string[]) =>
      chooseBackend(base({ listing: ids.map((id) => listing(id)), successRate: (id) => rates[id] })).backend;
    expect(pick(['claude-code', 'codex'])).toBe('codex');
    expect(pick(['claude-code', 'fresh'])).toBe('fresh');
    expect(pick(['fresh', 'codex'])).toBe('codex');
    // Preference still beats track record.
    expect(
      chooseBackend(
        base({
          listing: [listing('claude-code'), listing('codex')],
          rules: { prefer: ['claude-code'] },
          successRate: (id) => rates[id],
        }),
      ).why,
    ).toBe('claude-code: preference 1 of 1, track record 20% success');
  });

  test('a refused start removes the backend from the next choice', () => {
    expect(
      chooseBackend(
        base({
          rules: { prefer: ['claude-code', 'codex'] },
          rejections: [{ backend: 'claude-code', code: 'SESSION_START_FAILED', message: 'not logged in' }],
        }),
      ).backend,
    ).toBe('codex');
  });

  test('a scope that limits tools prefers a backend that enforces them', () => {
    expect(
      chooseBackend(
        base({
          listing: [listing('script', { honorsAllowedTools: false }), listing('codex')],
          wantsToolLimit: true,
          rules: { prefer: ['script'] },
        }),
      ).backend,
    ).toBe('codex');
  });
});
