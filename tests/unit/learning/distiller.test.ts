import { describe, expect, test } from 'vitest';
import {
  appendOutcome,
  readLessonsFile,
  runDistillPass,
  WEEK_MS,
  type HarnessOutcomeRecord,
} from '../../../engine/learning/index.js';
import { tempDir } from '../../helpers/temp.js';

const T0 = Date.parse('2026-03-02T00:00:00.000Z');

function outcome(id: string, at: number): HarnessOutcomeRecord {
  return {
    version: 1,
    sessionId: id,
    recordedAt: new Date(at).toISOString(),
    scope: 'owner',
    backendId: 'codex',
    taskTags: [],
    rounds: 1,
    durationMs: 1000,
    outcome: 'failed',
    outcomeSource: 'inferred',
    interventions: { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0, total: 0 },
  };
}

const LESSON = JSON.stringify({ lessons: [{ text: 'Codex fails on long builds.', scope: { backend: 'codex' } }] });

describe('the distiller pass on a simulated clock', () => {
  test('new, reinforced a week later, then decayed out after 20 idle weeks; the cursor moves with the write', async () => {
    const home = await tempDir();
    const asked: string[] = [];
    const distil = async ({ message }: { message: string }) => (asked.push(message), LESSON);
    const pass = (now: number) =>
      runDistillPass({ home, distil, backends: ['codex'], now: () => now, newId: () => 'ls_1' });

    await appendOutcome(home, outcome('cs_1', T0));
    expect((await pass(T0 + 1000)).added).toBe(1);
    expect((await readLessonsFile(home)).lessons[0]).toMatchObject({ confidence: 0.6, evidenceCount: 1 });

    await appendOutcome(home, outcome('cs_2', T0 + WEEK_MS));
    const second = await pass(T0 + WEEK_MS + 1000);
    expect(second).toMatchObject({ outcomes: 1, reinforced: 1, added: 0 });
    expect(asked[1]).toContain('- ls_1 [codex] Codex fails on long builds.');
    const reinforced = (await readLessonsFile(home)).lessons[0]!;
    expect(reinforced.confidence).toBeCloseTo(0.57 + 0.1, 6);
    expect(reinforced.evidenceCount).toBe(2);

    // Nothing new: the model is not asked; decay alone runs.
    const idle = await pass(T0 + WEEK_MS + 1000 + 5 * WEEK_MS);
    expect(idle.asked).toBe(false);
    expect(idle.lessons[0]!.confidence).toBeCloseTo(0.67 * 0.95 ** 5, 6);
    const gone = await pass(T0 + WEEK_MS + 1000 + 20 * WEEK_MS);
    expect(gone.evicted.map((l) => l.id)).toEqual(['ls_1']);
    expect(await readLessonsFile(home)).toMatchObject({ lessons: [], cursor: new Date(T0 + WEEK_MS).toISOString() });
    expect(asked).toHaveLength(2);
  });

  test('a failed model call writes nothing and keeps the cursor', async () => {
    const home = await tempDir();
    await appendOutcome(home, outcome('cs_1', T0));
    await expect(
      runDistillPass({
        home,
        backends: ['codex'],
        distil: async () => {
          throw new Error('provider down');
        },
      }),
    ).rejects.toThrow('provider down');
    expect(await readLessonsFile(home)).toEqual({ version: 1, lessons: [] });
  });
});
