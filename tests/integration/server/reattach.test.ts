/**
 * The attach client outlives its server: a process (a flow, a persona run) attached to one
 * `neo serve` finds the next one on the same NEO_HOME by itself and says what it holds, and the
 * new server steers its session.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachToServer, type ServerAttachment } from '../../../engine/server/index.js';
import { createSessionService, silentLog } from '../../../engine/session/index.js';
import { startTestServer } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/temp.js';

const SCRIPT = `
turns:
  - - say: First turn.
  - when: { guidanceContains: "from the next server" }
    actions:
      - say: Heard the next server.
`;

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('reattaching', () => {
  it('a process attached to a server that went away reattaches to the next one, which steers its session', async () => {
    const first = await startTestServer();
    const home = first.home;
    const work = await tempDir('neo-serve-work-');
    await writeFile(join(work, 'script.yaml'), SCRIPT);
    const attachment = (await attachToServer(home, 'neo persona run test')) as ServerAttachment;
    const service = createSessionService({ home, definitions: first.server.context.definitions(), log: silentLog });
    attachment.bindSessions(service);
    cleanup.push(async () => {
      await service.close();
      await attachment.close();
    });
    const { sessionId } = (await service.execute(
      {
        op: 'start',
        backend: 'script',
        brief: 'talk',
        cwd: work,
        backendOptions: { script: join(work, 'script.yaml') },
      },
      { scope: 'owner' },
    )) as { sessionId: string };
    await service.execute({ op: 'read-turn', sessionId }, { scope: 'owner' });
    expect((await first.api('/api/code-sessions')).body.data.live).toEqual([sessionId]);

    await first.server.close();
    const next = await startTestServer({ home });
    cleanup.push(() => next.server.close());
    for (let i = 0; i < 200; i++) {
      if ((await next.api('/api/code-sessions')).body.data.live.includes(sessionId)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await next.api(`/api/code-sessions/${sessionId}`)).body.data.live).toBe(true);
    const guided = await next.api(`/api/code-sessions/${sessionId}/guidance`, {
      json: { text: 'from the next server' },
    });
    expect(guided.status).toBe(200);
    const turn = (await service.execute({ op: 'read-turn', sessionId }, { scope: 'owner' })) as { text: string };
    expect(turn.text).toBe('Heard the next server.');
  });
});
