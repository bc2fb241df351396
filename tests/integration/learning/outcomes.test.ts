import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { readOutcomes, releaseRecorder } from '../../../engine/learning/index.js';
import { MemoryMetrics, SESSION_METRICS } from '../../../engine/observability/index.js';
import { createSessionService, silentLog } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';
import { project, run } from '../flow/helpers.js';

const SCRIPTS = fileURLToPath(new URL('../../fixtures/flows/scripts/', import.meta.url));

function plan(script: string, extra = ''): string {
  return `
name: outcomes
defaults: { backend: script, maxRounds: 4 }
steps:
  - id: work
    brief: Make the check pass.
    taskTags: [bugfix]
    script: ${join(SCRIPTS, script)}
${extra}`;
}

describe('an outcome from every settled session', () => {
  it('a flow step records the verdict of its gate, not the agent claiming it is done', async () => {
    const { dir, home } = await project({
      'plan.yaml': plan('claims-done.yaml', "    verify: { run: 'test -f ok', attempts: 2 }"),
    });
    const { outcome } = await run(dir, home);
    const sessionId = String(outcome.state.steps.get('work')!.outputs!.sessionId);
    const records = await readOutcomes(home);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      sessionId,
      backendId: 'script',
      taskTags: ['bugfix'],
      outcome: 'failed',
      outcomeSource: 'driver',
      failureReason: 'the check `test -f ok` still fails after 2 attempts (exit 1)',
      rounds: 2,
    });
    expect(records[0]!.scope).toMatch(/^flow:/);
  });

  it('a flow step whose gate passes records a success', async () => {
    const { dir, home } = await project({
      'plan.yaml': plan('writes-file.yaml', "    verify: { run: 'true', attempts: 1 }\n    requireChange: false"),
    });
    const { outcome } = await run(dir, home);
    expect(outcome.state.steps.get('work')!.status).toBe('succeeded');
    expect((await readOutcomes(home)).map((r) => [r.outcome, r.outcomeSource])).toEqual([['success', 'driver']]);
  });

  it("a person's session is judged by the person who stopped it, once per session", async () => {
    const home = await tempDir('neo-outcomes-');
    const script = join(home, 'script.yaml');
    await writeFile(script, 'turns:\n  - - say: looked at it\n  - - say: never reached\n');
    const { set } = await loadDefinitions({ home, noProject: true });
    const metrics = new MemoryMetrics();
    const hook = releaseRecorder({ home, verdict: 'person', metrics });
    const service = createSessionService({ home, definitions: set, log: silentLog, onReleased: hook });
    const caller = { scope: 'owner' };
    const cwd = await tempDir('neo-outcomes-cwd-');
    const { sessionId } = await service.execute(
      { op: 'start', brief: 'look', backend: 'script', cwd, backendOptions: { script } },
      caller,
    );
    expect((await service.execute({ op: 'read-turn', sessionId }, caller)).kind).toBe('turn_complete');
    await service.execute({ op: 'stop', sessionId, outcome: 'partial', note: 'half' }, caller);
    // A second settle of the same session (a retried sweep) records nothing new.
    await hook({ sessionId, scope: 'owner', durationMs: 1, store: service.store });
    await service.close();
    const records = await readOutcomes(home);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      sessionId,
      outcome: 'partial',
      outcomeSource: 'person',
      failureReason: 'half',
      scope: 'owner',
    });
    expect(metrics.count(SESSION_METRICS.settled, { backend: 'script', outcome: 'partial' })).toBe(1);
  });

  it('an interrupted person session is aborted, and a persona scope is left to the persona', async () => {
    const home = await tempDir('neo-outcomes-');
    const script = join(home, 'script.yaml');
    await writeFile(script, 'turns:\n  - - say: one\n  - - say: two\n');
    const { set } = await loadDefinitions({ home, noProject: true });
    const service = createSessionService({
      home,
      definitions: set,
      log: silentLog,
      onReleased: releaseRecorder({ home, verdict: 'person' }),
    });
    const cwd = await tempDir('neo-outcomes-cwd-');
    const start = (scope: string) =>
      service.execute({ op: 'start', brief: 'b', backend: 'script', cwd, backendOptions: { script } }, { scope });
    const mine = await start('owner');
    await service.execute({ op: 'read-turn', sessionId: mine.sessionId }, { scope: 'owner' });
    await service.execute({ op: 'interrupt', sessionId: mine.sessionId }, { scope: 'owner' });
    await service.execute({ op: 'stop', sessionId: mine.sessionId }, { scope: 'owner' });
    service.setScopeConstraints('persona:x', { ownOutcomes: true });
    const theirs = await start('persona:x');
    await service.releaseAllOwnedBy('persona:x');
    await service.close();
    const records = await readOutcomes(home);
    expect(records.map((r) => [r.sessionId, r.outcome])).toEqual([[mine.sessionId, 'aborted']]);
    expect(records.some((r) => r.sessionId === theirs.sessionId)).toBe(false);
  });
});
