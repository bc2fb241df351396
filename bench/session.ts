/**
 * Code-session benchmarks:
 *  1. per-event overhead: N agent events from a fast in-process transport through the session
 *     layer (transport → lifecycle machine → store, with a read-turn + guide per turn) vs a
 *     baseline appending the same `{seq, at, event}` lines with the same durability policy
 *     (a JsonlAppender, waiting for the write at each turn boundary) — same run, interleaved;
 *  2. memory: RSS with K idle live sessions on the script backend vs the process before them.
 * Sizes: --events=100000 --turn=50 --sessions=100 --reps=5
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadDefinitions, type DefinitionSet } from '../engine/definitions/index.js';
import { createSessionService, silentLog } from '../engine/session/index.js';
import type { AgentEvent, AgentSession, Transport } from '../engine/transports/index.js';
import { JsonlAppender } from '../engine/util/jsonl.js';
import { interleave, median, numberArgs, report, type Figure } from './harness.js';

const size = numberArgs({ events: 100_000, turn: 50, sessions: 100, reps: 5 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-session-'));
let runCounter = 0;

/** The events of one turn: text, tool calls and results, then turn_complete. */
function turnEvents(turn: number): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; events.length < size.turn - 1; i++) {
    if (i % 5 === 3)
      events.push({ type: 'tool_use', id: `t${turn}.${i}`, name: 'write', input: { path: `src/file${i}.ts` } });
    else if (i % 5 === 4) events.push({ type: 'tool_result', id: `t${turn}.${i - 1}`, output: 'ok', isError: false });
    else
      events.push({
        type: 'text',
        text: `Working on step ${i} of turn ${turn}; reading the code and deciding what to change.`,
      });
  }
  events.push({ type: 'turn_complete', numTurns: 1, costUsd: 0.001 });
  return events;
}

/** An agent that plays one pre-built turn per prompt, as fast as the consumer pulls. */
class FastAgent implements AgentSession {
  readonly #turns: AgentEvent[][];
  #queue: AgentEvent[] = [];
  #wake: (() => void) | undefined;
  #done = false;

  constructor(turns: AgentEvent[][]) {
    this.#turns = turns;
    this.#queue = [{ type: 'started', externalSessionId: 'fast' }, ...this.#nextTurn()];
  }

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

  #nextTurn(): AgentEvent[] {
    const turn = this.#turns.shift();
    if (turn !== undefined) return turn;
    return [{ type: 'ended', ok: true, text: 'done' }];
  }

  #push(events: AgentEvent[]): void {
    this.#queue.push(...events);
    this.#wake?.();
  }

  async sendGuidance(): Promise<void> {
    this.#push(this.#nextTurn());
  }
  async answer(): Promise<void> {}
  async setPosture(): Promise<void> {}
  async interrupt(): Promise<void> {}
  async stop(): Promise<void> {
    this.#done = true;
    this.#wake?.();
  }
}

function turnsFor(total: number): AgentEvent[][] {
  return Array.from({ length: Math.ceil(total / size.turn) }, (_, t) => turnEvents(t + 1));
}

/** CPU time (user + system) used while `run` ran, in ms. */
async function cpuOf(run: () => Promise<number>): Promise<{ wall: number; cpu: number }> {
  const before = process.cpuUsage();
  const wall = await run();
  const used = process.cpuUsage(before);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** neo: the whole session layer; returns ms. */
async function runNeo(definitions: DefinitionSet): Promise<number> {
  const home = join(root, `neo-${runCounter++}`);
  const cwd = root;
  const turns = turnsFor(size.events);
  const transport: Transport = {
    id: 'script',
    probeAvailability: async () => ({ available: true, status: 'ok' }),
    start: async () => new FastAgent(turns),
  };
  const service = createSessionService({
    home,
    definitions,
    transports: async () => transport,
    log: silentLog,
    defaultCwd: cwd,
  });
  const caller = { scope: 'bench' };
  const t0 = performance.now();
  const { sessionId } = await service.execute(
    { op: 'start', brief: 'bench', backend: 'script', maxRounds: 1_000_000 },
    caller,
  );
  for (;;) {
    const result = await service.execute({ op: 'read-turn', sessionId }, caller);
    if (result.kind !== 'turn_complete') break;
    await service.execute({ op: 'guide', sessionId, text: 'next' }, caller);
  }
  const elapsed = performance.now() - t0;
  await service.close();
  rmSync(home, { recursive: true, force: true });
  return elapsed;
}

/** baseline: the same lines through one JsonlAppender, durable at each turn boundary; returns ms. */
async function runBaseline(): Promise<number> {
  const file = join(root, `baseline-${runCounter++}.jsonl`);
  const turns = turnsFor(size.events);
  const t0 = performance.now();
  const appender = new JsonlAppender(file);
  let seq = 1;
  for (const turn of turns) {
    let last: Promise<void> = Promise.resolve();
    for (const event of turn)
      last = appender.appendLine(JSON.stringify({ seq: seq++, at: new Date().toISOString(), event }));
    await last;
  }
  await appender.close();
  const elapsed = performance.now() - t0;
  rmSync(file, { force: true });
  return elapsed;
}

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / (1024 * 1024);
}

/** RSS before and with `count` idle live sessions on the script backend. */
async function idleSessionsRss(definitions: DefinitionSet, count: number): Promise<{ neo: number; baseline: number }> {
  const home = join(root, 'idle-home');
  const script = join(root, 'idle.yaml');
  writeFileSync(script, 'turns:\n  - - say: ready and waiting\n  - - say: second turn\n');
  const service = createSessionService({ home, definitions, log: silentLog, defaultCwd: root });
  const caller = { scope: 'bench' };
  // Warm the code paths once so the baseline includes loaded modules, not per-session state.
  const warm = await service.execute(
    { op: 'start', brief: 'warm', backend: 'script', backendOptions: { script } },
    caller,
  );
  await service.execute({ op: 'read-turn', sessionId: warm.sessionId }, caller);
  await service.execute({ op: 'stop', sessionId: warm.sessionId }, caller);
  const before = rssMb();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { sessionId } = await service.execute(
      { op: 'start', brief: `idle ${i}`, backend: 'script', backendOptions: { script } },
      caller,
    );
    await service.execute({ op: 'read-turn', sessionId }, caller);
    ids.push(sessionId);
  }
  const after = rssMb();
  if (service.liveSessionIds().length !== count) throw new Error('sessions did not stay live');
  await service.close();
  return { neo: after, baseline: before };
}

/** The memory figure runs in a fresh process, so garbage from the timing runs cannot blur it. */
async function memoryInChild(): Promise<{ neo: number; baseline: number }> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), '--memory-child', `--sessions=${size.sessions}`],
    { encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as { neo: number; baseline: number };
}

async function main(): Promise<void> {
  const { set } = await loadDefinitions({ home: join(root, 'defs-home'), noProject: true });
  if (process.argv.includes('--memory-child')) {
    console.log(JSON.stringify(await idleSessionsRss(set, size.sessions)));
    rmSync(root, { recursive: true, force: true });
    return;
  }
  console.log(
    `session bench: ${size.events} events in turns of ${size.turn}, ${size.reps} reps; ${size.sessions} idle sessions`,
  );
  const memory = await memoryInChild();
  await runNeo(set); // warm-up
  await runBaseline();
  const cpu = { neo: [] as number[], baseline: [] as number[] };
  const times = await interleave(
    size.reps,
    async () => {
      const r = await cpuOf(() => runNeo(set));
      cpu.neo.push(r.cpu);
      return r.wall;
    },
    async () => {
      const r = await cpuOf(runBaseline);
      cpu.baseline.push(r.cpu);
      return r.wall;
    },
  );
  const perEvent: Figure = {
    name: 'per-event cost (wall)',
    neo: (times.neo * 1000) / size.events,
    baseline: (times.baseline * 1000) / size.events,
    unit: 'µs/event',
  };
  const perEventCpu: Figure = {
    name: 'per-event cost (cpu)',
    neo: (median(cpu.neo) * 1000) / size.events,
    baseline: (median(cpu.baseline) * 1000) / size.events,
    unit: 'µs/event',
  };
  const throughput: Figure = {
    name: 'throughput',
    neo: size.events / (times.neo / 1000),
    baseline: size.events / (times.baseline / 1000),
    unit: 'events/s',
    lowerIsBetter: false,
  };
  report(perEvent);
  report(perEventCpu);
  report(throughput);
  report({
    name: `rss with ${size.sessions} idle live sessions`,
    neo: memory.neo,
    baseline: memory.baseline,
    unit: 'MB',
  });
  const overhead = memory.neo - memory.baseline;
  const ratio = perEvent.neo / perEvent.baseline;
  console.log(
    `summary: ${Math.round(throughput.neo)} events/s through the session layer (goal ≥ 50000: ${throughput.neo >= 50_000 ? 'met' : 'missed'}), ` +
      `${ratio.toFixed(2)}x the bare append (goal ≤ 2: ${ratio <= 2 ? 'met' : 'missed'}), ` +
      `${overhead.toFixed(1)} MB for ${size.sessions} idle sessions (goal ≤ 150: ${overhead <= 150 ? 'met' : 'missed'})`,
  );
  rmSync(root, { recursive: true, force: true });
}

await main();
