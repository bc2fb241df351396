import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { createSessionService, silentLog, type SessionLiveEvent } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';

const SCRIPT = `
turns:
  - - say: starting
    - write: { path: one.txt, content: "1\\n" }
    - ask: { toolName: Fetch, input: { url: "https://example.com" }, onAllow: [{ say: fetched }], onDeny: [{ say: skipped }] }
    - say: turn one done
  - - edit: { path: one.txt, search: "1", replace: "one" }
    - write: { path: two.txt, content: "2\\n" }
    - say: turn two done
  - - delete: { path: two.txt }
    - end: { ok: true, text: all done }
`;

describe('20 concurrent sessions on the script backend', () => {
  it('persists every event of every session, in order', async () => {
    const home = await tempDir('neo-conc-home-');
    const script = join(home, 'script.yaml');
    await writeFile(script, SCRIPT);
    const { set } = await loadDefinitions({ home, noProject: true });
    const service = createSessionService({ home, definitions: set, log: silentLog });
    const live = new Map<string, SessionLiveEvent[]>();
    service.onSessionEvent((event) => {
      const list = live.get(event.sessionId) ?? [];
      list.push(event);
      live.set(event.sessionId, list);
    });
    const caller = { scope: 'bench' };

    const drive = async (n: number) => {
      const cwd = await tempDir(`neo-conc-${n}-`);
      const { sessionId } = await service.execute(
        { op: 'start', brief: `session ${n}`, backend: 'script', cwd, backendOptions: { script } },
        caller,
      );
      const kinds: string[] = [];
      for (;;) {
        const result = await service.execute({ op: 'read-turn', sessionId }, caller);
        kinds.push(result.kind);
        if (result.kind === 'clarification')
          await service.execute(
            { op: 'answer', sessionId, clarificationId: result.clarificationId, allow: n % 2 === 0 },
            caller,
          );
        else if (result.kind === 'turn_complete')
          await service.execute({ op: 'guide', sessionId, text: 'next' }, caller);
        else break;
      }
      await service.execute({ op: 'stop', sessionId, outcome: 'success' }, caller);
      return { sessionId, cwd, kinds };
    };
    const runs = await Promise.all(Array.from({ length: 20 }, (_, n) => drive(n)));

    for (const [n, run] of runs.entries()) {
      expect(run.kinds).toEqual(['clarification', 'turn_complete', 'turn_complete', 'ended']);
      expect(await readFile(join(run.cwd, 'one.txt'), 'utf8')).toBe('one\n');
      const stored = (await service.store.readEvents(run.sessionId))!;
      const seen = live.get(run.sessionId)!;
      expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
      // What listeners saw is what was kept, less the live-only fields (the session and its owner scope).
      expect(stored).toEqual(seen.map(({ sessionId: _id, ownerScope: _scope, ...line }) => line));
      expect(stored[0]!.event.type).toBe('created');
      expect(stored.at(-1)!.event).toEqual({ type: 'released', reason: 'explicit', outcome: 'success' });
      const said = stored.flatMap((e) => (e.event.type === 'text' ? [e.event.text] : []));
      expect(said).toEqual(['starting', n % 2 === 0 ? 'fetched' : 'skipped', 'turn one done', 'turn two done']);
      expect(await service.store.get(run.sessionId)).toMatchObject({
        status: 'ended',
        roundsElapsed: 2,
        outcome: 'success',
      });
    }
    expect(service.liveSessionIds()).toEqual([]);
    await service.close();
  });
});
