/**
 * `neo serve` under load, on loopback: --sessions live script sessions in the server (started
 * over the daemon socket) stream to --clients SSE clients of GET /api/events for --duration
 * seconds. Each session gets a person's guidance (POST …/guidance) every --every ms, and each
 * guidance plays a turn of --say text lines (a reader takes each turn, as a driver would). Checked against events.jsonl at the end: every
 * client saw every line of every session exactly once and in order (coalesced texts are
 * compared word for word). Reported: each client's feed rate against the uncoalesced rate of
 * events.jsonl (the baseline: what a feed without coalescing would send), the server's RSS
 * against its RSS before the load, and its CPU.
 * Sizes: --sessions=100 --clients=10 --duration=10 (60 for the figure) --say=20 --every=1000
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectDaemon } from '../engine/session/index.js';
import { neoBinPath } from '../engine/util/package-root.js';
import { numberArgs, percentile, report } from './harness.js';

const size = numberArgs({ sessions: 100, clients: 10, duration: 10, say: 20, every: 1000 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-serve-'));
const home = join(root, 'home');
const work = join(root, 'work');

interface FeedItem {
  sessionId: string;
  seq: number;
  firstSeq?: number;
  event: { type: string; text?: string };
}

/** One SSE client: every code_session_event, grouped by session, and its arrival times. */
class Client {
  readonly bySession = new Map<string, FeedItem[]>();
  readonly arrivals: number[] = [];
  readonly #controller = new AbortController();
  readonly done: Promise<void>;

  constructor(url: string, token: string) {
    this.done = this.#run(url, token).catch((error: unknown) => {
      if (!this.#controller.signal.aborted) throw error;
    });
  }

  async #run(url: string, token: string): Promise<void> {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: this.#controller.signal,
    });
    if (response.body === null) throw new Error(`SSE answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined || !block.includes('event: code_session_event')) continue;
        const item = JSON.parse(data.slice(6)) as FeedItem;
        this.arrivals.push(Date.now());
        let list = this.bySession.get(item.sessionId);
        if (list === undefined) this.bySession.set(item.sessionId, (list = []));
        list.push(item);
      }
    }
  }

  lastSeq(sessionId: string): number {
    return this.bySession.get(sessionId)?.at(-1)?.seq ?? 0;
  }

  close(): Promise<void> {
    this.#controller.abort();
    return this.done;
  }
}

/** Resident set size and CPU seconds of a process, from /proc. */
function processStats(pid: number): { rssMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  return { rssMb: rssKb / 1024, cpuSeconds: ticks / 100 };
}

function fileEvents(sessionId: string): Array<{ seq: number; event: { type: string; text?: string } }> {
  return readFileSync(join(home, 'code-sessions', sessionId, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { seq: number; event: { type: string; text?: string } });
}

/** Compares what one client saw of one session with the file: lost, out of order, or twice. */
function check(
  items: FeedItem[],
  file: ReturnType<typeof fileEvents>,
): { lost: number; disorder: number; wrong: number } {
  const bySeq = new Map(file.map((e) => [e.seq, e]));
  let expected = 1;
  let lost = 0;
  let disorder = 0;
  let wrong = 0;
  for (const item of items) {
    const first = item.firstSeq ?? item.seq;
    if (first < expected) disorder++;
    else lost += first - expected;
    const texts: string[] = [];
    for (let s = first; s <= item.seq; s++) {
      const line = bySeq.get(s);
      if (line === undefined) wrong++;
      else if (item.firstSeq !== undefined) texts.push(line.event.text ?? '');
    }
    if (item.firstSeq !== undefined && texts.join('\n\n') !== item.event.text) wrong++;
    expected = Math.max(expected, item.seq + 1);
  }
  lost += Math.max(0, (file.at(-1)?.seq ?? 0) - (expected - 1));
  return { lost, disorder, wrong };
}

async function main(): Promise<void> {
  await execa('mkdir', ['-p', home, work]);
  const turn = Array.from(
    { length: size.say },
    (_, i) => `{ say: "line ${i} of this turn: reading, thinking, writing." }`,
  );
  const turns = Math.ceil((size.duration * 1000) / size.every) + 5;
  const script = join(work, 'chatty.yaml');
  writeFileSync(script, `turns:\n${Array.from({ length: turns }, () => `  - [${turn.join(', ')}]`).join('\n')}\n`);

  const server = execa(process.execPath, [neoBinPath(), 'serve', '--port', '0'], {
    env: { ...process.env, NEO_HOME: home },
    reject: false,
    buffer: false,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void server.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
  });
  const origin = url.slice(0, url.indexOf('/#token='));
  const token = url.slice(url.indexOf('#token=') + 7);
  const pid = server.pid!;
  const idle = processStats(pid);

  const clients = Array.from(
    { length: size.clients },
    () => new Client(`${origin}/api/events?topics=code_session_event`, token),
  );
  const daemon = await connectDaemon(home);
  if (daemon === undefined) throw new Error('the server does not answer on the daemon socket');
  const ids: string[] = [];
  for (let i = 0; i < size.sessions; i++) {
    const started = (await daemon.execute(
      {
        op: 'start',
        backend: 'script',
        brief: `session ${i}`,
        cwd: work,
        maxRounds: turns + 5,
        maxPosture: 'acceptEdits',
        backendOptions: { script },
      },
      'owner',
      work,
    )) as { sessionId: string };
    ids.push(started.sessionId);
  }

  // A driver reads every turn, as one would (an unread session would pile up its notifications).
  let reading = true;
  const readers = ids.map(async (sessionId) => {
    while (reading) await daemon.execute({ op: 'read-turn', sessionId }, 'owner', work).catch(() => (reading = false));
  });

  // The load: every session gets a person's guidance every --every ms, spread over the interval.
  const loadStart = Date.now();
  const before = processStats(pid);
  let peakRss = before.rssMb;
  let refused = 0;
  const latencies: number[] = [];
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, processStats(pid).rssMb)), 250);
  const end = loadStart + size.duration * 1000;
  await Promise.all(
    ids.map(async (id, i) => {
      await new Promise((r) => setTimeout(r, (i * size.every) / ids.length));
      while (Date.now() < end) {
        const sent = performance.now();
        const response = await fetch(`${origin}/api/code-sessions/${id}/guidance`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: `keep going (${Date.now() - loadStart} ms)` }),
        });
        if (response.status !== 200) refused++;
        await response.arrayBuffer();
        latencies.push(performance.now() - sent);
        await new Promise((r) => setTimeout(r, size.every));
      }
    }),
  );
  const after = processStats(pid);
  const heap = async () =>
    (
      (await (await fetch(`${origin}/api/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        data: { memory: { rssMb: number; heapUsedMb: number } };
      }
    ).data.memory;
  const memoryAtEnd = await heap();
  const loadSeconds = (Date.now() - loadStart) / 1000;
  clearInterval(sampler);

  // Quiet: wait until every client has every line the files hold (or give up after 30 s).
  const settleBy = Date.now() + 30_000;
  for (;;) {
    const behind = ids.some((id) => {
      const last = fileEvents(id).at(-1)?.seq ?? 0;
      return clients.some((c) => c.lastSeq(id) < last);
    });
    if (!behind || Date.now() > settleBy) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await Promise.all(clients.map((c) => c.close()));

  let lost = 0;
  let disorder = 0;
  let wrong = 0;
  let lines = 0;
  for (const id of ids) {
    const file = fileEvents(id);
    lines += file.length;
    for (const client of clients) {
      const result = check(client.bySession.get(id) ?? [], file);
      lost += result.lost;
      disorder += result.disorder;
      wrong += result.wrong;
    }
  }
  const received = clients.map((c) => c.arrivals.length);
  const perClient = received.reduce((a, b) => a + b, 0) / clients.length / loadSeconds;
  const peakWindow = Math.max(
    ...clients.map((c) => {
      const counts = new Map<number, number>();
      for (const t of c.arrivals) counts.set(Math.floor(t / 1000), (counts.get(Math.floor(t / 1000)) ?? 0) + 1);
      return Math.max(0, ...counts.values());
    }),
  );
  const rawRate = lines / loadSeconds;

  report({ name: 'feed rate per client', neo: perClient, baseline: rawRate, unit: 'events/s' });
  report({ name: 'peak 1 s feed rate per client', neo: peakWindow, baseline: rawRate, unit: 'events/s' });
  // The baseline is the server with its sessions started (each holds its parsed script, which is
  // as long as the run): what the load itself adds is the feeds, the hub and the turns.
  report({ name: 'server RSS under load', neo: peakRss, baseline: before.rssMb, unit: 'MB' });
  console.log(`server heap in use at the end of the load: ${memoryAtEnd.heapUsedMb} MB (RSS ${memoryAtEnd.rssMb} MB)`);
  const cpu = ((after.cpuSeconds - before.cpuSeconds) / loadSeconds) * 100;
  console.log(
    `server CPU under load: ${cpu.toFixed(0)}% of one core (${(((after.cpuSeconds - before.cpuSeconds) * 1000) / lines).toFixed(3)} ms per event line); RSS with no session: ${idle.rssMb.toFixed(0)} MB`,
  );
  console.log(
    `guidance round trip: p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms over ${latencies.length} requests`,
  );
  console.log(
    `checked ${size.clients} clients × ${size.sessions} sessions against events.jsonl: ${lines} lines, ${lost} lost, ${disorder} out of order, ${wrong} mismatched; ${refused} guidance refused`,
  );
  console.log(
    `summary: ${size.sessions} sessions → ${size.clients} SSE clients for ${loadSeconds.toFixed(0)} s: each client got ${perClient.toFixed(0)} events/s for ${rawRate.toFixed(0)} lines/s written (coalescing ${(rawRate / perClient).toFixed(1)}×), ${lost + disorder + wrong === 0 ? 'nothing lost or reordered' : 'LOSS OR DISORDER'}`,
  );

  reading = false;
  server.kill('SIGTERM');
  await server;
  await Promise.all(readers);
  daemon.close();
  rmSync(root, { recursive: true, force: true });
  if (lost + disorder + wrong + refused > 0) process.exitCode = 1;
}

await main();
