/**
 * neo agent benchmark: the wall time of one agent turn against the scripted model server vs a
 * bare streaming HTTP client that sends the same request body, decodes the same SSE stream and
 * parses each event's JSON — the least any real client does — interleaved in the same run. The
 * difference is the agent's own per-turn overhead: block reassembly, events, transcript
 * bookkeeping, tools (in the tool turn, the baseline also reads the file the tool reads).
 * Goal: ratio ≤ 1.3. A third side, a client that only reads the bytes (the goal before the
 * adapters' delta fast paths were retired), is reported for information.
 * The scripted server runs in its own process (`neo model serve`), as a real provider would, so
 * the clients compete only with each other's work, not with the server's.
 * Sizes: --reps=200 --warmup=1000 --chars=4000 --chunk=8. Each figure is the median of `reps`
 * interleaved turns of each side, measured in steady state: every side first runs `warmup`
 * turns, unmeasured, so the JIT has compiled what each runs per turn, as in a session that has
 * been working for a while (code that runs once or twice per turn, on both sides node:http's own,
 * is optimized only after hundreds of turns; `--warmup=200` shows the ratio a few points higher).
 * Figures and their dates: docs/architecture.md, "Performance notes".
 */
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  Agent,
  BackgroundShells,
  builtinTools,
  createProvider,
  DEFAULT_RETRY,
  type ProviderApi,
} from '../engine/agent/index.js';
import { execa, type ResultPromise } from 'execa';
import type { ModelScript } from '../engine/model-server/index.js';
import { parseJsonl } from '../engine/util/jsonl.js';
import { neoBinPath } from '../engine/util/package-root.js';
import { median, numberArgs, ratio, report, type Figure } from './harness.js';

const size = numberArgs({ reps: 200, warmup: 1000, chars: 4000, chunk: 8 });
const workdir = mkdtempSync(join(tmpdir(), 'neo-bench-agent-'));
writeFileSync(join(workdir, 'notes.txt'), 'line\n'.repeat(200));
const reply = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size.chars / 27)).slice(0, size.chars);
const keepAlive = new http.Agent({ keepAlive: true });

interface Served {
  url: string;
  /** The request bodies the server received, from its log. */
  requests(): Array<{ path: string; query: Record<string, string>; body: unknown }>;
  close(): Promise<void>;
}

let serial = 0;

/** `neo model serve` in a child process, with a request log. */
async function startServer(script: ModelScript): Promise<Served> {
  const id = serial++;
  const scriptFile = join(workdir, `script-${id}.json`);
  const logFile = join(workdir, `requests-${id}.jsonl`);
  writeFileSync(scriptFile, JSON.stringify(script));
  const child: ResultPromise = execa(
    process.execPath,
    [neoBinPath(), 'model', 'serve', '--script', scriptFile, '--log', logFile, '--json', '--quiet'],
    { reject: false, stdin: 'ignore' },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    void child.then((r) => reject(new Error(`model server exited: ${String(r.stderr)}`)));
  });
  return {
    url,
    // parseJsonl skips a line the server is still appending.
    requests: () =>
      parseJsonl<{ path: string; query: Record<string, string>; body: unknown }>(
        existsSync(logFile) ? readFileSync(logFile, 'utf8') : '',
      ).records,
    async close() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

type ModelServer = Served;

function baseUrl(server: ModelServer, api: ProviderApi): string {
  return api === 'openai-chat' || api === 'openai-responses' ? `${server.url}/v1` : server.url;
}

/** The built-in tools, built once as a session builds them (each turn below is a fresh agent). */
const toolList = builtinTools({
  cwd: workdir,
  env: process.env,
  shells: new BackgroundShells(join(workdir, '.shells')),
  execTimeoutMs: 10_000,
  ripgrep: null,
});

function agentFor(server: ModelServer, api: ProviderApi, tools = false): Agent {
  const provider = createProvider({
    name: 'bench',
    api,
    baseUrl: baseUrl(server, api),
    headers: {},
    headersTimeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    retry: DEFAULT_RETRY,
  });
  // Configured as the neo backend runs it: events for whole blocks, no per-delta events.
  return new Agent({
    provider,
    model: 'bench-model',
    system: 'You are a benchmark.',
    tools: tools ? toolList : [],
    onEvent: () => {},
    deltas: false,
  });
}

type Client = (url: string, body: string) => Promise<void>;

/** POSTs a body and reads the whole response body, nothing else (the information-only side). */
const bareTurn: Client = (url, body) => post(url, body, (res) => res.on('data', () => {}));

/**
 * POSTs a body, decodes the SSE stream and parses each event's JSON: the baseline. A minimal
 * client of its own (not neo's decoder): events split at blank lines, `data:` lines parsed.
 */
const sseTurn: Client = (url, body) =>
  post(url, body, (res) => {
    res.setEncoding('utf8');
    let rest = '';
    res.on('data', (chunk: string) => {
      rest += chunk;
      for (let cut = rest.indexOf('\n\n'); cut !== -1; cut = rest.indexOf('\n\n')) {
        for (const line of rest.slice(0, cut).split('\n')) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data !== '[DONE]') JSON.parse(data);
        }
        rest = rest.slice(cut + 2);
      }
    });
  });

function post(url: string, body: string, read: (res: http.IncomingMessage) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        read(res);
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the three sides in turn (the order rotating), `reps` times; their medians. */
async function interleave3(
  reps: number,
  sides: [() => Promise<number>, () => Promise<number>, () => Promise<number>],
): Promise<[number, number, number]> {
  const samples: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < reps; i++)
    for (let k = 0; k < 3; k++) {
      const side = (i + k) % 3;
      samples[side]!.push(await sides[side]!());
    }
  return [median(samples[0]), median(samples[1]), median(samples[2])];
}

/** The goal figure (neo vs the SSE+JSON client) and the information one (neo vs a bare read). */
function figuresOf(name: string, [neo, sse, bare]: [number, number, number]): Figure[] {
  return [
    { name, neo, baseline: sse, unit: 'ms' },
    { name: `${name} [info: vs a bare read]`, neo, baseline: bare, unit: 'ms' },
  ];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Replays the requests neo sent for one turn, in order, with a bare client. */
async function recordedRequests(
  server: ModelServer,
  from: number,
  count: number,
): Promise<Array<{ url: string; body: string }>> {
  // The log is appended asynchronously: wait until the turn's requests are in it.
  for (let i = 0; i < 200 && server.requests().length < from + count; i++) await new Promise((r) => setTimeout(r, 10));
  return server
    .requests()
    .slice(from, from + count)
    .map((r) => ({
      url: `${server.url}${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''}`,
      body: JSON.stringify(r.body),
    }));
}

async function textTurn(api: ProviderApi): Promise<Figure[]> {
  // A request without tools is a main turn here, not an auxiliary one.
  const script: ModelScript = {
    aux: { detect: 'never' },
    turns: [{ text: reply, chunk: size.chunk, times: 'always', usage: { input: 100, output: 1000 } }],
  };
  const server = await startServer(script);
  try {
    await agentFor(server, api).send('write something');
    const requests = await recordedRequests(server, 0, 1);
    const replay = (client: Client) => async () => {
      for (const r of requests) await client(r.url, r.body);
    };
    const neo = () => agentFor(server, api).send('write something');
    for (let i = 0; i < size.warmup; i++) {
      await neo();
      await replay(sseTurn)();
      await replay(bareTurn)();
    }
    const medians = await interleave3(size.reps, [
      () => timed(neo),
      () => timed(replay(sseTurn)),
      () => timed(replay(bareTurn)),
    ]);
    return figuresOf(`text turn (${api}, ${size.chars} chars in ${size.chunk}-char deltas)`, medians);
  } finally {
    await server.close();
  }
}

async function toolTurn(api: ProviderApi): Promise<Figure[]> {
  const script: ModelScript = {
    turns: [
      { when: { toolResult: 'line' }, text: reply, chunk: size.chunk, times: 'always' },
      {
        tools: [{ name: 'read_file', arguments: { path: 'notes.txt', limit: 50 } }],
        chunk: size.chunk,
        times: 'always',
      },
    ],
  };
  const server = await startServer(script);
  try {
    await agentFor(server, api, true).send('read the notes');
    const requests = await recordedRequests(server, 0, 2);
    if (requests.length !== 2) throw new Error(`expected 2 model calls per tool turn, saw ${requests.length}`);
    // The clients do the tool's own work too (reading the file, as read_file does: asynchronously),
    // so the figure is the agent's machinery, not the cost of a file read no side can avoid.
    const replay = (client: Client) => async (): Promise<void> => {
      await client(requests[0]!.url, requests[0]!.body);
      await readFile(join(workdir, 'notes.txt'), 'utf8');
      await client(requests[1]!.url, requests[1]!.body);
    };
    const neo = () => agentFor(server, api, true).send('read the notes');
    for (let i = 0; i < size.warmup; i++) {
      await neo();
      await replay(sseTurn)();
      await replay(bareTurn)();
    }
    const medians = await interleave3(size.reps, [
      () => timed(neo),
      () => timed(replay(sseTurn)),
      () => timed(replay(bareTurn)),
    ]);
    return figuresOf(`tool turn (${api}, read_file + ${size.chars}-char answer, 2 model calls)`, medians);
  } finally {
    await server.close();
  }
}

const figures: Figure[] = [];
for (const api of ['anthropic', 'openai-responses', 'openai-chat', 'gemini'] as const)
  figures.push(...(await textTurn(api)));
figures.push(...(await toolTurn('anthropic')));
figures.push(...(await toolTurn('openai-chat')));
for (const figure of figures) report(figure);
const goal = figures.filter((f) => !f.name.includes('[info:'));
const worst = Math.max(...goal.map(ratio));
console.log(
  `summary: neo agent per-turn overhead in steady state (${size.warmup} warm-up turns, median of ${size.reps}) against a client that decodes SSE and parses each event, worst ratio ${worst.toFixed(2)} over ${goal.length} figures (goal ≤ 1.30: ${worst <= 1.3 ? 'met' : 'not met'})`,
);
keepAlive.destroy();
rmSync(workdir, { recursive: true, force: true });
