import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readOutcomes, trackRecords } from '../../../engine/learning/index.js';
import { createSessionService, silentLog, type ListBackendsResult } from '../../../engine/session/index.js';
import { fixerPersona, writeScenario } from '../../fixtures/persona/scenario.js';
import { digest, personaHarness } from './harness.js';

describe('a rules persona drives the script backend', () => {
  test('a clarification allowed, one denied, a failed gate turned into guidance, a verified success', async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona() } });
    const script = await writeScenario(h.cwd, h.scripts);
    const { result, seen } = await h.run('fixer', { backendOptions: { script } });

    expect(digest(seen)).toEqual([
      'selected script',
      'started script default<=acceptEdits rounds 4',
      'turn clarification',
      'allow write by clarify[0]',
      'turn clarification',
      'allow run by clarify[1]',
      'turn clarification',
      'deny run by otherwise',
      'turn turn_complete',
      'check failed',
      'judged guide',
      'turn clarification',
      'allow edit by clarify[0]',
      'turn turn_complete',
      'check passed',
      'judged stop success',
      'settled success',
    ]);
    expect(result.verdict).toEqual({ outcome: 'success', note: '`node check.js` passed' });
    expect(await readFile(join(h.cwd, 'src/value.txt'), 'utf8')).toBe('fixed\n');
    // The chained command was refused: src/ still exists.
    const denied = seen.find((o) => o.type === 'answered' && !o.answer.allow);
    expect(denied?.type === 'answered' && denied.answer.reason).toBe(
      '`node check.js && rm -rf src` chains, pipes or redirects commands; run each allowed command on its own',
    );

    // The guidance the agent got is the persona's template filled with the check's output.
    const events = (await h.service.store.readEvents(result.session!.sessionId))!;
    const guidance = events.flatMap((e) => (e.event.type === 'guidance' ? [e.event] : []));
    expect(guidance).toEqual([
      { type: 'guidance', source: 'deny', text: expect.stringContaining('chains, pipes or redirects commands') },
      { type: 'guidance', source: 'driver', text: 'The check failed:\nexpected fixed, got broken\nFix src/value.txt.' },
    ]);
    // Every answer is on record, with who gave it: here the persona's driver scope, four times.
    const answers = events.flatMap((e) => (e.event.type === 'clarification' ? [e.event] : []));
    expect(answers.map((a) => [a.toolName, a.decision.allow, a.by])).toEqual([
      ['write', true, result.scope],
      ['run', true, result.scope],
      ['run', false, result.scope],
      ['edit', true, result.scope],
    ]);
    expect(answers[2]!.ask).toEqual({
      kind: 'execute',
      toolName: 'run',
      paths: [],
      command: 'node check.js && rm -rf src',
    });
    const released = events.at(-1)!.event;
    expect(released).toEqual({
      type: 'released',
      reason: 'explicit',
      outcome: 'success',
      note: '`node check.js` passed',
    });

    // One outcome record, exactly.
    const records = await readOutcomes(h.home);
    expect(records).toEqual([
      {
        version: 1,
        sessionId: result.session!.sessionId,
        recordedAt: expect.any(String),
        scope: result.scope,
        persona: 'fixer',
        backendId: 'script',
        model: 'script-model-1',
        taskTags: ['bugfix'],
        rounds: 2,
        durationMs: expect.any(Number),
        costUsd: 0.03,
        outcome: 'success',
        outcomeSource: 'driver',
        interventions: { userGuidance: 0, clarifications: 4, postureEscalations: 0, interrupts: 0, total: 4 },
        driverNote: '`node check.js` passed',
      },
    ]);
    expect(result.records).toEqual(records);
    expect(await trackRecords(h.home).lines('script')).toEqual(['script: 1 run, 100% success, avg 2.0 rounds']);
    // Swept: nothing live, constraints gone.
    expect(h.service.liveSessionIds()).toEqual([]);
    expect(h.service.registry.scopeConstraints(result.scope)).toBeUndefined();
  });

  test('two runs: two records, a per-model track-record line, and list-backends shows them', async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona() } });
    const script = await writeScenario(h.cwd, h.scripts);
    const first = await h.run('fixer', { backendOptions: { script } });
    await writeFile(join(h.cwd, 'src/value.txt'), 'start\n');
    const second = await h.run('fixer', { backendOptions: { script }, taskTags: ['second'] });
    expect([first.result.verdict.outcome, second.result.verdict.outcome]).toEqual(['success', 'success']);
    const records = await readOutcomes(h.home);
    expect(records.map((r) => [r.sessionId, r.taskTags, r.outcome])).toEqual([
      [first.result.session!.sessionId, ['bugfix'], 'success'],
      [second.result.session!.sessionId, ['bugfix', 'second'], 'success'],
    ]);
    const lines = [
      'script: 2 runs, 100% success, avg 2.0 rounds',
      '  script · script-model-1: 2 runs, 100% success, avg 2.0 rounds',
    ];
    expect(await trackRecords(h.home).lines('script')).toEqual(lines);
    // The session service's track-record seam, as neo wires it.
    const service = createSessionService({
      home: h.home,
      definitions: h.set,
      log: silentLog,
      trackRecord: (id) => trackRecords(h.home).lines(id),
    });
    try {
      const listed = (await service.execute({ op: 'list-backends' }, { scope: 'owner' })) as ListBackendsResult;
      expect(listed.backends.find((b) => b.id === 'script')!.trackRecord).toEqual(lines);
      expect(listed.backends.find((b) => b.id === 'codex')!.trackRecord).toBeUndefined();
    } finally {
      await service.close();
    }
  });

  test('a spent budget stops the persona instead of guiding again', async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona({ extra: 'budgets: { maxCostUsd: 0.01 }' }) } });
    const script = await writeScenario(h.cwd, h.scripts);
    const { result, seen } = await h.run('fixer', { backendOptions: { script } });
    expect(result.verdict).toEqual({
      outcome: 'aborted',
      note: 'budget spent: $0.0100 of maxCostUsd 0.01',
      failureReason: 'budget spent: $0.0100 of maxCostUsd 0.01',
      code: 'PERSONA_BUDGET_SPENT',
    });
    expect(await readOutcomes(h.home)).toEqual([
      expect.objectContaining({
        outcome: 'aborted',
        outcomeSource: 'driver',
        failureReason: 'budget spent: $0.0100 of maxCostUsd 0.01',
      }),
    ]);
    expect(digest(seen).slice(-3)).toEqual(['check failed', 'judged stop aborted', 'settled aborted']);
    expect(await readFile(join(h.cwd, 'src/value.txt'), 'utf8')).toBe('broken\n');
  });
});
