import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp.js';
import { harness } from '../../unit/session/harness.js';

const CHILD = fileURLToPath(new URL('../../fixtures/session/crash-child.mjs', import.meta.url));
const TRIALS = 50;
const PARALLEL = 8;

interface Trial {
  home: string;
  sessionId: string;
  maxAck: number;
}

/** Runs the child until it has acknowledged `acks` read-turns (plus a random extra), then SIGKILLs it. */
async function crashTrial(acks: number, extraTicks: number): Promise<Trial> {
  const home = await tempDir('neo-crash-home-');
  const cwd = await tempDir('neo-crash-cwd-');
  const child = execa(process.execPath, [CHILD, home, cwd], {
    reject: false,
    buffer: false,
    stdin: 'ignore',
    stderr: 'inherit',
  });
  let sessionId = '';
  let maxAck = 0;
  let seen = 0;
  await new Promise<void>((resolve) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'session') sessionId = value!;
        if (word === 'ack') {
          maxAck = Math.max(maxAck, Number(value));
          if (++seen === acks) {
            // Land the kill at a random point after the ack: somewhere in the next events.
            let ticks = extraTicks;
            const tick = () => (ticks-- > 0 ? setImmediate(tick) : (child.kill('SIGKILL'), resolve()));
            tick();
          }
        }
      }
    });
    void child.then(() => resolve());
  });
  await child;
  return { home, sessionId, maxAck };
}

describe('crash consistency', () => {
  it(`keeps meta.json parsable, events.jsonl readable and seq gapless across ${TRIALS} SIGKILLs and adopts`, async () => {
    // A fixed seed keeps failures reproducible.
    let seed = 20_261_130;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const plans = Array.from({ length: TRIALS }, () => ({ acks: 1 + random(10), ticks: random(60) }));
    const trials: Trial[] = [];
    for (let i = 0; i < plans.length; i += PARALLEL) {
      trials.push(...(await Promise.all(plans.slice(i, i + PARALLEL).map((p) => crashTrial(p.acks, p.ticks)))));
    }
    for (const trial of trials) {
      expect(trial.sessionId).toMatch(/^cs_/);
      const metaText = await readFile(join(trial.home, 'code-sessions', trial.sessionId, 'meta.json'), 'utf8');
      const meta = JSON.parse(metaText) as { version: number; status: string; sessionId: string };
      expect(meta).toMatchObject({ version: 1, sessionId: trial.sessionId });
      expect(['running', 'idle']).toContain(meta.status);

      // Restart: sweep, adopt, continue, stop.
      const h = await harness({
        home: trial.home,
        backends: { script: (await import('../../fixtures/session/definitions.js')).backendData() },
      });
      const before = (await h.service.store.readEvents(trial.sessionId))!;
      expect(before.map((e) => e.seq)).toEqual(before.map((_, i) => i + 1));
      expect(before.length).toBeGreaterThanOrEqual(trial.maxAck);
      expect(await h.service.store.sweepOrphaned()).toEqual([trial.sessionId]);
      h.service.setScopeConstraints('resume', { adoptRecordId: trial.sessionId, backend: 'script' });
      await h.service.execute({ op: 'start', brief: 'resume' }, { scope: 'resume' });
      h.transport.last.emit({ type: 'text', text: 'after the crash' }, { type: 'turn_complete' });
      await h.service.execute({ op: 'read-turn', sessionId: trial.sessionId }, { scope: 'resume' });
      await h.service.execute({ op: 'stop', sessionId: trial.sessionId }, { scope: 'resume' });
      const after = (await h.service.store.readEvents(trial.sessionId))!;
      expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after[before.length]!.event.type).toBe('adopted');
      expect(after.at(-1)!.event.type).toBe('released');
      await h.service.close();
    }
  }, 300_000);
});
