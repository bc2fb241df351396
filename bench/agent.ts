/**
 * neo agent benchmark: the wall time of one agent turn against the scripted model server vs a
 * bare streaming HTTP client that sends the same request body and reads the same stream to the
 * end, interleaved in the same run. The difference is the agent's own per-turn overhead: SSE
 * decoding, JSON parsing of every event, block reassembly, events, transcript bookkeeping (in the
 * tool turn, the baseline also reads the file the tool reads). Goal: ratio ≤ 1.2.
 * The scripted server runs in its own process (`neo model serve`), as a real provider would, so
 * the two clients compete only with each other's work, not with the server's.
 * Sizes: --reps=200 --warmup=1000 --chars=4000 --chunk=8. Each figure is the median of `reps`
 * interleaved turns of each side (a turn is a few milliseconds, so 200 keep a figure steady to
 * about ±2% on a noisy machine), measured in steady state: both sides first run `warmup` turns,
 * unmeasured, so the JIT has compiled what each runs per turn, as in a session that has been
 * working for a while. A cold first turn costs more on both sides and is not what is compared.
 * Why 1000: code that runs once or twice per turn (building a request, the end of a stream, the
 * loop's bookkeeping; on both sides, node:http's own) is optimized only after many turns.
 * `node --trace-opt`, anthropic tool turns: 87 functions optimized during 200 warm-up turns of
 * each side and 73 more during the 400 turns measured after them; after 1000 warm-up turns, 18.
 * The ratio settles by 1000 (200 leave it a few points higher). `--warmup=200` shows that.
 */
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { interleave, numberArgs, ratio, report, type Figure } from './harness.js';

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

/** POSTs a body and reads the whole response body, nothing else. */
function bareTurn(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
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

async function textTurn(api: ProviderApi): Promise<Figure> {
  // A request without tools is a main turn here, not an auxiliary one.
  const script: ModelScript = {
    aux: { detect: 'never' },
    turns: [{ text: reply, chunk: size.chunk, times: 'always', usage: { input: 100, output: 1000 } }],
  };
  const server = await startServer(script);
  try {
    await agentFor(server, api).send('write something');
    const requests = await recordedRequests(server, 0, 1);
    for (let i = 0; i < size.warmup; i++) {
      await agentFor(server, api).send('write something');
      for (const r of requests) await bareTurn(r.url, r.body);
    }
    const medians = await interleave(
      size.reps,
      () => timed(() => agentFor(server, api).send('write something')),
      () =>
        timed(async () => {
          for (const r of requests) await bareTurn(r.url, r.body);
        }),
    );
    return {
      name: `text turn (${api}, ${size.chars} chars in ${size.chunk}-char deltas)`,
      neo: medians.neo,
      baseline: medians.baseline,
      unit: 'ms',
    };
  } finally {
    await server.close();
  }
}

async function toolTurn(api: ProviderApi): Promise<Figure> {
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
    // The bare client does the tool's own work too (reading the file, synchronously as read_file
    // reads a small file), so the figure is the agent's machinery, not the cost of a file read
    // neither side can avoid.
    const bareToolTurn = async (): Promise<void> => {
      await bareTurn(requests[0]!.url, requests[0]!.body);
      readFileSync(join(workdir, 'notes.txt'), 'utf8');
      await bareTurn(requests[1]!.url, requests[1]!.body);
    };
    for (let i = 0; i < size.warmup; i++) {
      await agentFor(server, api, true).send('read the notes');
      await bareToolTurn();
    }
    const medians = await interleave(
      size.reps,
      () => timed(() => agentFor(server, api, true).send('read the notes')),
      () => timed(bareToolTurn),
    );
    return {
      name: `tool turn (${api}, read_file + ${size.chars}-char answer, 2 model calls)`,
      neo: medians.neo,
      baseline: medians.baseline,
      unit: 'ms',
    };
  } finally {
    await server.close();
  }
}

const figures: Figure[] = [];
for (const api of ['anthropic', 'openai-responses', 'openai-chat', 'gemini'] as const)
  figures.push(await textTurn(api));
figures.push(await toolTurn('anthropic'));
figures.push(await toolTurn('openai-chat'));
for (const figure of figures) report(figure);
const worst = Math.max(...figures.map(ratio));
console.log(
  `summary: neo agent per-turn overhead in steady state (${size.warmup} warm-up turns, median of ${size.reps}), worst ratio ${worst.toFixed(2)} over ${figures.length} figures (goal ≤ 1.20: ${worst <= 1.2 ? 'met' : 'not met'})`,
);
keepAlive.destroy();
rmSync(workdir, { recursive: true, force: true });
