import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDaemon, silentLog, startSessionDaemon, type RunningDaemon } from '../../../engine/session/index.js';
import { FakeTransport } from '../../fixtures/session/fake-transport.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

/** A project whose flow holds `keys` environment variables: valid, large, slow to parse. */
async function bigProject(keys: number): Promise<string> {
  const project = await tempDir();
  const env = Array.from({ length: keys }, (_, i) => `      K${i}: v\n`).join('');
  await writeTree(project, {
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.neo/flows/big.flow.yaml': `name: big\nsteps:\n  - id: s\n    run: echo\n    env:\n${env}`,
  });
  return project;
}

describe("session daemon: a project's definitions load off the event loop", () => {
  it('turns of another session keep flowing while a start loads a large project', async () => {
    const home = await tempDir();
    const quiet = await tempDir();
    const project = await bigProject(10_000);
    const transport = new FakeTransport('script');
    const daemon = await startSessionDaemon({
      home,
      log: silentLog,
      idleMs: 60_000,
      service: { transports: async () => transport },
    });
    running.push(daemon);
    const a = (await connectDaemon(home))!;
    const { sessionId } = (await a.execute(
      { op: 'start', brief: 'a', backend: 'script', maxRounds: 1_000_000 },
      'owner',
      quiet,
    )) as {
      sessionId: string;
    };
    const agent = transport.last;
    agent.onGuidance = (text, self) => self.emit({ type: 'turn_complete', text });
    agent.emit({ type: 'turn_complete', text: 'first' });
    await a.execute({ op: 'read-turn', sessionId }, 'owner', quiet);

    const b = (await connectDaemon(home))!;
    const t0 = performance.now();
    let loaded = false;
    const started = b
      .execute({ op: 'start', brief: 'b', backend: 'script' }, 'owner', project)
      .finally(() => (loaded = true));
    const latencies: number[] = [];
    while (!loaded) {
      const t = performance.now();
      await a.execute({ op: 'guide', sessionId, text: 'go on' }, 'owner', quiet);
      expect(await a.execute({ op: 'read-turn', sessionId }, 'owner', quiet)).toMatchObject({ kind: 'turn_complete' });
      latencies.push(performance.now() - t);
    }
    const total = performance.now() - t0;
    expect(await started).toMatchObject({ sessionId: expect.any(String) });
    // On the event loop, one turn waits for the whole parse (most of the start); off it, turns
    // go on meanwhile. Relative to the start's own time, so a slow machine does not change it.
    expect(latencies.length).toBeGreaterThan(1);
    expect(latencies.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(total / 2);
    a.close();
    b.close();
  });
});
