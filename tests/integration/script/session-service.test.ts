import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { loadDefinitions, type DefinitionSet } from '../../../engine/definitions/index.js';
import { createSessionService, silentLog } from '../../../engine/session/index.js';
import { writeScript } from '../../helpers/script.js';
import { tempDir } from '../../helpers/temp.js';

let home: string;
let set: DefinitionSet;
beforeEach(async () => {
  home = await tempDir('neo-home-');
  process.env.NEO_HOME = home;
  set = (await loadDefinitions({ cwd: home, home })).set;
});

const caller = { scope: 'test' };

describe('the script backend under the session service', () => {
  test('a hanging turn is reported as stalled, never as success; interrupt ends it and the session goes on', async () => {
    const service = createSessionService({ home, definitions: set, log: silentLog, idleTimeoutMs: 150 });
    const cwd = await tempDir();
    const script = await writeScript(await tempDir(), {
      turns: [[{ say: 'thinking' }, { hang: { note: 'a stuck model' } }], [{ say: 'unstuck' }]],
    });
    const { sessionId } = (await service.execute(
      { op: 'start', brief: 'go', backend: 'script', cwd, backendOptions: { script } },
      caller,
    )) as { sessionId: string };
    const stalled = (await service.execute({ op: 'read-turn', sessionId }, caller)) as {
      kind: string;
      stalled?: boolean;
    };
    expect(stalled).toMatchObject({ kind: 'error', stalled: true });
    await service.execute({ op: 'interrupt', sessionId }, caller);
    expect(await service.execute({ op: 'read-turn', sessionId }, caller)).toMatchObject({
      kind: 'turn_complete',
      text: 'thinking',
      numTurns: 1,
    });
    await service.execute({ op: 'guide', sessionId, text: 'try again' }, caller);
    const next = (await service.execute({ op: 'read-turn', sessionId }, caller)) as { kind: string; text?: string };
    expect(next).toMatchObject({ kind: 'turn_complete', text: 'unstuck' });
    await service.execute({ op: 'stop', sessionId }, caller);
    await service.close();
  });

  test('an invalid script fails the start with its positioned diagnostics', async () => {
    const service = createSessionService({ home, definitions: set, log: silentLog });
    const dir = await tempDir();
    const script = join(dir, 'bad.yaml');
    await writeScript(dir, 'turns:\n  - - sya: hi\n', 'bad.yaml');
    const error = await service
      .execute({ op: 'start', brief: 'go', backend: 'script', cwd: dir, backendOptions: { script } }, caller)
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      `script ${script}:2:7 is invalid: unknown key \`sya\` in \`turns[0][0]\` (did you mean \`say\`?)`,
    );
    await service.close();
  });

  test('the store keeps the script’s progress beside meta.json and events.jsonl', async () => {
    const service = createSessionService({ home, definitions: set, log: silentLog });
    const cwd = await tempDir();
    const script = await writeScript(await tempDir(), {
      turns: [{ cost: { usd: 0.5 }, actions: [{ say: 'one' }] }, [{ say: 'two' }]],
    });
    const { sessionId } = (await service.execute(
      { op: 'start', brief: 'go', backend: 'script', cwd, initialPosture: 'plan', backendOptions: { script } },
      caller,
    )) as { sessionId: string };
    expect(await service.execute({ op: 'read-turn', sessionId }, caller)).toMatchObject({
      kind: 'turn_complete',
      text: 'one',
      costUsd: 0.5,
      numTurns: 1,
    });
    await service.execute({ op: 'stop', sessionId }, caller);
    await service.close();
    const progress = JSON.parse(await readFile(join(home, 'code-sessions', sessionId, 'script-progress.json'), 'utf8'));
    expect(progress).toMatchObject({ version: 1, nextTurn: 1, turnsPlayed: 1, scriptFile: script });
  });
});
