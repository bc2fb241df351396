/**
 * Sweep out (seed 004 §2): when a persona settles — success, failure or abort — every session it
 * opened is released and its constraints cleared, and no subprocess it started outlives it.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { readOutcomes } from '../../../engine/learning/index.js';
import { fixerPersona, writeScenario } from '../../fixtures/persona/scenario.js';
import { personaHarness } from './harness.js';

/** The agent starts a long-running command (allowed by the rules) and waits on it. */
const HANGING = {
  turns: [
    [
      {
        run: {
          command: [
            'node',
            '-e',
            "require('fs').writeFileSync('child.pid', String(process.pid)); setInterval(() => {}, 1000)",
          ],
        },
      },
      { say: 'never reached' },
    ],
  ],
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(25);
  }
}

describe('sweep out', () => {
  test('an aborted persona releases its session and kills the command its agent was running', async () => {
    const persona = fixerPersona().replace(
      '  otherwise: deny',
      '    - { decision: allow, command: "node -e *" }\n  otherwise: deny',
    );
    const h = await personaHarness({ agents: { fixer: persona } });
    const script = await writeScenario(h.cwd, h.scripts, HANGING);
    const controller = new AbortController();
    const running = h.run('fixer', { backendOptions: { script }, signal: controller.signal });
    const pid = await until(async () => {
      const text = await readFile(join(h.cwd, 'child.pid'), 'utf8').catch(() => '');
      return text === '' ? undefined : Number(text);
    });
    expect(alive(pid)).toBe(true);
    expect(h.service.liveSessionIds()).toHaveLength(1);
    controller.abort('stopped by the test');
    const { result } = await running;

    expect(result.verdict).toEqual({
      outcome: 'aborted',
      note: 'stopped by the test',
      failureReason: 'stopped by the test',
      code: 'PERSONA_ABORTED',
    });
    expect(alive(pid)).toBe(false);
    expect(h.service.liveSessionIds()).toEqual([]);
    expect(h.service.registry.scopeConstraints(result.scope)).toBeUndefined();
    const record = await h.service.store.get(result.session!.sessionId);
    expect(record).toMatchObject({ state: 'released', outcome: 'aborted', note: 'stopped by the test' });
    expect(await readOutcomes(h.home)).toEqual([
      expect.objectContaining({
        sessionId: result.session!.sessionId,
        outcome: 'aborted',
        outcomeSource: 'driver',
        failureReason: 'stopped by the test',
      }),
    ]);
  });

  test('a failed persona is swept too, and its verdict says why', async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona().replace('maxRounds: 4', 'maxRounds: 2') } });
    // The agent never fixes it: the check keeps failing until the rounds run out.
    const never = [{ write: { path: 'src/value.txt', content: 'broken\n' } }, { say: 'done' }];
    const script = await writeScenario(h.cwd, h.scripts, { turns: [never, never] });
    const { result, seen } = await h.run('fixer', { backendOptions: { script } });
    expect(result.verdict).toEqual({
      outcome: 'failed',
      note: 'the agent used all 2 rounds and the check `node check.js` still fails',
      failureReason: 'the agent used all 2 rounds and the check `node check.js` still fails',
      code: 'PERSONA_MAX_ROUNDS',
    });
    expect(seen.filter((o) => o.type === 'turn').map((o) => o.type === 'turn' && o.kind)).toEqual([
      'clarification',
      'turn_complete',
      'clarification',
      'max_rounds',
    ]);
    expect(h.service.liveSessionIds()).toEqual([]);
    expect(h.service.registry.scopeConstraints(result.scope)).toBeUndefined();
    await expect(stat(join(h.cwd, 'src/value.txt'))).resolves.toBeDefined();
  });

  test('an abort before any session exists settles without starting one', async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona() } });
    const script = await writeScenario(h.cwd, h.scripts);
    const controller = new AbortController();
    controller.abort('cancelled early');
    const { result, seen } = await h.run('fixer', { backendOptions: { script }, signal: controller.signal });
    expect(result.verdict).toEqual({
      outcome: 'aborted',
      note: 'cancelled early',
      failureReason: 'cancelled early',
      code: 'PERSONA_ABORTED',
    });
    expect(result.sessionIds).toEqual([]);
    expect(seen.some((o) => o.type === 'started')).toBe(false);
    expect(h.service.registry.scopeConstraints(result.scope)).toBeUndefined();
  });
});
