/**
 * One answer per approval, across processes: two warm processes — one answering as `neo flow
 * approve` does, one as the server's route does — send opposite answers to the same approval at
 * the same moment, fifty times. Every time exactly one wins, the other is refused naming the
 * winner, and the run follows the winner.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents, spawnNeo } from './flow-helpers.js';
import { watchFolder } from '../helpers/leaks.js';

const ROUNDS = 50;
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const RACER = fileURLToPath(new URL('../fixtures/approvals/racer.mjs', import.meta.url));

const PLAN = `name: race
steps:
  - id: ship
    foreach: { items: [${Array.from({ length: ROUNDS }, (_, i) => i).join(', ')}], maxParallel: ${ROUNDS} }
    approval:
      prompt: Ship item?
      decisions: [ { id: approve }, { id: reject } ]
`;

interface Reply {
  key: string;
  ok: boolean;
  code?: string;
  message?: string;
  answered?: { decision: string; by: string };
}

/**
 * A racer process and the replies it printed, in order. Spawned through node:child_process:
 * execa reads a child's stdout on its own, and a line it took never reaches the reader here.
 */
function racer(home: string, path: 'cli' | 'server', decision: string, by: string) {
  const child = spawn(process.execPath, [RACER, DIST, path, decision, by], {
    env: { ...process.env, NEO_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const waiting: Array<(line: string) => void> = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  return { child, next, exited };
}

/**
 * A racer that has said `ready`. Beside the suite's fork-flood tests a fresh Node process has
 * been seen to stall before its first line (its modules not yet loaded, nothing on stderr); one
 * that does is replaced, at most twice. The race itself is never retried.
 */
async function warmRacer(home: string, path: 'cli' | 'server', decision: string, by: string) {
  for (let attempt = 1; ; attempt++) {
    const one = racer(home, path, decision, by);
    const first = await Promise.race([one.next(), new Promise<string>((r) => setTimeout(() => r('nothing'), 15_000))]);
    if (first === 'ready') return one;
    one.child.kill('SIGKILL');
    await one.exited;
    if (attempt === 3) throw new Error(`racer ${by} said ${String(first)} instead of ready, three times`);
  }
}

describe('approvals are check-and-set across processes', () => {
  it(`two processes answer one approval ${ROUNDS} times: exactly one wins each time and the run follows it`, async () => {
    const root = await tempDir('neo-e2e-race-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    watchFolder(home);
    await writeTree(dir, { 'plan.yaml': PLAN });
    // The racers warm up before the run starts its fifty waits.
    const a = await warmRacer(home, 'cli', 'approve', 'racer-a');
    const b = await warmRacer(home, 'server', 'reject', 'racer-b');
    const run = spawnNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: dir, home });
    try {
      // Every item waits before the race begins.
      let runId = '';
      for (;;) {
        runId = await onlyRunId(home).catch(() => '');
        const started = runId === '' ? [] : (await readEvents(home, runId)).filter((e) => e.type === 'step.started');
        if (started.length === ROUNDS) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const winners: Record<string, string> = {};
      for (let i = 0; i < ROUNDS; i++) {
        const key = `ship[${i}]`;
        // Both lines written in the same tick, the first writer alternating.
        const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
        first.child.stdin!.write(`${runId} ${key}\n`);
        second.child.stdin!.write(`${runId} ${key}\n`);
        const replies = (await Promise.all([a.next(), b.next()])).map((line) => JSON.parse(line) as Reply);
        const won = replies.filter((r) => r.ok);
        expect(won, `round ${i}: ${JSON.stringify(replies)}`).toHaveLength(1);
        const winner = replies.indexOf(won[0]!) === 0 ? 'approve' : 'reject';
        const loser = replies.find((r) => !r.ok)!;
        expect(loser.code).toBe('FLOW_APPROVAL_ANSWERED');
        expect(loser.message).toContain(winner === 'approve' ? 'racer-a' : 'racer-b');
        winners[key] = winner;
      }
      a.child.stdin!.end();
      b.child.stdin!.end();
      const result = await run;
      expect(result.exitCode).toBe(0);
      const completed = (await readEvents(home, runId)).filter(
        (e) => e.type === 'step.completed' && e.item !== undefined,
      );
      expect(completed).toHaveLength(ROUNDS);
      for (const event of completed) expect(event.verdict).toBe(winners[`ship[${String(event.item)}]`]);
    } finally {
      a.child.kill();
      b.child.kill();
      run.kill();
      await Promise.all([a.exited, b.exited, run]);
    }
  }, 120_000);
});
