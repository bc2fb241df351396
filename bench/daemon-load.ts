/**
 * Session daemon under a large project (a start loading a project's definitions must not stall
 * the other sessions): the latency of another session's turns (guide + read-turn over the
 * daemon's socket) while a `start` loads a project whose flow holds --keys keys (under the
 * 1 MB cap), against the same turns with no load going on. Two figures: the load as the daemon
 * does it now (a worker thread), and as it did before (on the event loop: the same
 * loadDefinitions() run on the daemon's thread). Sizes: --keys=60000 --reps=3
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadDefinitions } from '../engine/definitions/index.js';
import { connectDaemon, silentLog, startSessionDaemon } from '../engine/session/index.js';
import type { AgentEvent, AgentSession, Transport } from '../engine/transports/index.js';
import { median, numberArgs, percentile, report } from './harness.js';

const size = numberArgs({ keys: 60_000, reps: 3 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-daemon-load-'));

/** An agent that completes a turn for each guidance, at once. */
class PingPongAgent implements AgentSession {
  #queue: AgentEvent[] = [
    { type: 'started', externalSessionId: 'ping' },
    { type: 'turn_complete', text: 'ready' },
  ];
  #wake: (() => void) | undefined;
  #done = false;
  readonly events: AsyncIterable<AgentEvent> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<AgentEvent>> => {
        for (;;) {
          const event = this.#queue.shift();
          if (event !== undefined) return { value: event, done: false };
          if (this.#done) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      },
    }),
  };
  async sendGuidance(text: string): Promise<void> {
    this.#queue.push({ type: 'turn_complete', text });
    this.#wake?.();
  }
  async answer(): Promise<void> {}
  async setPosture(): Promise<void> {}
  async interrupt(): Promise<void> {}
  async stop(): Promise<void> {
    this.#done = true;
    this.#wake?.();
  }
}

function bigProject(): string {
  const project = join(root, 'project');
  mkdirSync(join(project, '.neo', 'flows'), { recursive: true });
  mkdirSync(join(project, '.git'));
  const env = Array.from({ length: size.keys }, (_, i) => `      K${i}: v\n`).join('');
  writeFileSync(
    join(project, '.neo', 'flows', 'big.flow.yaml'),
    `name: big\nsteps:\n  - id: s\n    run: echo\n    env:\n${env}`,
  );
  return project;
}

/** Turn latencies (ms) of one session while `during` runs (or for `turns` turns when it is absent). */
async function turnLatencies(
  home: string,
  quiet: string,
  during: ((daemonHome: string) => Promise<unknown>) | undefined,
): Promise<number[]> {
  const transport: Transport = {
    id: 'script',
    probeAvailability: async () => ({ available: true, status: 'ok' }),
    start: async () => new PingPongAgent(),
  };
  const daemon = await startSessionDaemon({ home, log: silentLog, service: { transports: async () => transport } });
  const client = (await connectDaemon(home))!;
  const caller = 'bench';
  const { sessionId } = (await client.execute(
    { op: 'start', brief: 'turns', backend: 'script', maxRounds: 1_000_000 },
    caller,
    quiet,
  )) as { sessionId: string };
  await client.execute({ op: 'read-turn', sessionId }, caller, quiet);
  const latencies: number[] = [];
  const turn = async () => {
    const t = performance.now();
    await client.execute({ op: 'guide', sessionId, text: 'go on' }, caller, quiet);
    await client.execute({ op: 'read-turn', sessionId }, caller, quiet);
    latencies.push(performance.now() - t);
  };
  if (during === undefined) {
    for (let i = 0; i < 200; i++) await turn();
  } else {
    let done = false;
    const work = during(home).finally(() => (done = true));
    while (!done) await turn();
    await work;
  }
  client.close();
  await daemon.close();
  return latencies;
}

/** The largest value (a spread of thousands of latencies would overflow the stack). */
function slowest(values: readonly number[]): number {
  return values.reduce((a, b) => Math.max(a, b), 0);
}

async function main(): Promise<void> {
  const project = bigProject();
  const quiet = join(root, 'quiet');
  mkdirSync(quiet);
  console.log(`daemon-load bench: a project flow of ${size.keys} keys, ${size.reps} reps`);
  let run = 0;
  const home = () => {
    const dir = join(root, `home-${run++}`);
    mkdirSync(dir);
    return dir;
  };
  const startInProject = async (daemonHome: string) => {
    const client = (await connectDaemon(daemonHome))!;
    await client.execute({ op: 'start', brief: 'big', backend: 'script' }, 'bench', project);
    client.close();
  };
  const onLoop = (daemonHome: string) => loadDefinitions({ cwd: project, home: daemonHome });
  const figures = { offThread: [] as number[], onLoop: [] as number[], idle: [] as number[], idleP50: [] as number[] };
  for (let i = 0; i < size.reps; i++) {
    const idle = await turnLatencies(home(), quiet, undefined);
    figures.idle.push(slowest(idle));
    figures.idleP50.push(percentile(idle, 50));
    figures.offThread.push(slowest(await turnLatencies(home(), quiet, startInProject)));
    figures.onLoop.push(slowest(await turnLatencies(home(), quiet, onLoop)));
  }
  const idle = median(figures.idle);
  report({
    name: 'slowest turn while a start loads the project, worker thread (now)',
    neo: median(figures.offThread),
    baseline: idle,
    unit: 'ms',
  });
  report({
    name: 'slowest turn while the project loads on the event loop (before)',
    neo: median(figures.onLoop),
    baseline: idle,
    unit: 'ms',
  });
  console.log(
    `summary: another session's slowest turn during the load is ${median(figures.offThread).toFixed(0)} ms with the worker, ` +
      `${median(figures.onLoop).toFixed(0)} ms on the event loop (median turn with no load ${median(figures.idleP50).toFixed(1)} ms)`,
  );
  rmSync(root, { recursive: true, force: true });
}

await main();
