/**
 * Transport benchmark: one turn driven through neo's adapter vs the same CLI command driven
 * directly by a minimal client, both against the same scripted model server, interleaved in the
 * same run, for claude-code and codex. The difference is what the adapter adds per turn: the
 * handshake it waits for, line parsing, event normalization, bookkeeping. Uses the real CLIs
 * installed by scripts/install-clis.mjs (.neo-cache/clis) and falls back, loudly, to the fake CLIs
 * of the test suite when one is missing. Goal: ratio ≤ 1.10.
 * Sizes: --reps=5
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Backend } from '../engine/definitions/index.js';
import { startModelServer, type ModelScript, type ModelServer } from '../engine/model-server/index.js';
import { createClaudeCodeTransport, PROTOCOL_ARGS } from '../engine/transports/claude-code/index.js';
import { createCodexTransport } from '../engine/transports/codex/index.js';
import type { Transport } from '../engine/transports/index.js';
import { killTree } from '../engine/execution/index.js';
import { interleave, numberArgs, ratio, report, type Figure } from './harness.js';

const size = numberArgs({ reps: 5 });
const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'neo-bench-transports-'));
const SCRIPT: ModelScript = {
  models: ['gpt-5.5'],
  aux: { text: 'Bench title' },
  turns: [{ text: 'Done.', times: 'always', usage: { input: 1000, output: 20 } }],
};

/** One CLI under test: how to reach it and how to drive one turn of it by hand. */
interface Subject {
  id: 'claude-code' | 'codex';
  bin: string;
  label: string;
  env: NodeJS.ProcessEnv;
  transport: Transport;
  descriptor: Backend;
  model: string;
  direct(cwd: string): Promise<void>;
}

function installed(id: string, fake: string): { bin: string; label: string } {
  const manifest = join(root, '.neo-cache', 'clis', 'manifest.json');
  const entry = existsSync(manifest)
    ? (
        JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { status: string; bin?: string; version?: string }>
      )[id]
    : undefined;
  if (entry?.status === 'installed' && entry.bin !== undefined && existsSync(entry.bin))
    return { bin: entry.bin, label: `real ${entry.version ?? id}` };
  console.warn(`*** ${id}: not installed (run node scripts/install-clis.mjs); measuring the fake CLI instead`);
  return { bin: join(root, 'tests', 'fixtures', 'fake-clis', fake), label: 'fake CLI' };
}

function descriptorOf(id: string): Backend {
  return {
    description: id,
    protocol: id as Backend['protocol'],
    command: { bin: id },
    postureMap: {
      acceptEdits:
        id === 'codex'
          ? { settings: { sandbox: 'workspace-write', approvalPolicy: 'on-request' } }
          : { mode: 'acceptEdits' },
    },
    clarifySupport: true,
    granularity: 'stream',
    honorsAllowedTools: id !== 'codex',
    costProfile: 'metered',
    modelSelection: 'per-turn',
  };
}

/** Spawns `bin args` in its own group and hands each stdout JSON line to `onMessage` until it returns true. */
async function driveDirect(
  bin: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  start: (write: (m: unknown) => void) => void,
  onMessage: (m: Record<string, unknown>, write: (m: unknown) => void) => boolean,
): Promise<void> {
  const child = execa(bin, args, {
    cwd,
    env,
    extendEnv: false,
    detached: true,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'ignore',
    buffer: false,
    reject: false,
  });
  const write = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  try {
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return;
        }
        if (typeof message === 'object' && message !== null && onMessage(message as Record<string, unknown>, write))
          resolve();
      });
      lines.on('close', () => reject(new Error(`${bin} ended before its turn did`)));
      start(write);
    });
  } finally {
    child.stdin!.end();
    await killTree({ pgid: child.pid! }, 2_000);
    await child;
  }
}

function claudeSubject(server: ModelServer): Subject {
  const { bin, label } = installed('claude', 'fake-claude.mjs');
  const home = join(work, 'claude-home');
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    FAKE_CLI_HOME: join(home, 'fake'),
    NEO_CLAUDE_CODE_BIN: bin,
  };
  const model = 'claude-sonnet-4-5';
  const descriptor = descriptorOf('claude-code');
  return {
    id: 'claude-code',
    bin,
    label,
    env,
    descriptor,
    model,
    transport: createClaudeCodeTransport({ id: 'claude-code', data: descriptor }),
    direct: (cwd) =>
      driveDirect(
        bin,
        [...PROTOCOL_ARGS, '--permission-mode', 'acceptEdits', '--model', model],
        cwd,
        env,
        (write) => {
          write({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize', hooks: null } });
          write({
            type: 'user',
            message: { role: 'user', content: 'Say done.' },
            parent_tool_use_id: null,
            session_id: '',
          });
        },
        (m) => m.type === 'result',
      ),
  };
}

function codexSubject(server: ModelServer): Subject {
  const { bin, label } = installed('codex', 'fake-codex.mjs');
  const home = join(work, 'codex-home');
  mkdirSync(home, { recursive: true });
  const toml = [
    'model = "gpt-5.5"',
    'model_provider = "neo"',
    'check_for_update_on_startup = false',
    '[model_providers.neo]',
    'name = "neo model server"',
    `base_url = "${server.url}/v1"`,
    'env_key = "NEO_MODEL_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '[analytics]',
    'enabled = false',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'api_key_model_discovery = false',
    '',
  ];
  writeFileSync(join(home, 'config.toml'), toml.join('\n'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: home,
    NEO_MODEL_API_KEY: 'neo-bench',
    FAKE_CLI_HOME: join(home, 'fake'),
    NEO_CODEX_BIN: bin,
  };
  const descriptor = { ...descriptorOf('codex'), command: { bin: 'codex', args: ['app-server'] } };
  return {
    id: 'codex',
    bin,
    label,
    env,
    descriptor,
    model: 'gpt-5.5',
    transport: createCodexTransport({ id: 'codex', data: descriptor }),
    direct: (cwd) => {
      let threadId = '';
      return driveDirect(
        bin,
        ['app-server'],
        cwd,
        env,
        (write) =>
          write({
            method: 'initialize',
            id: 1,
            params: {
              clientInfo: { name: 'bench', title: 'bench', version: '0' },
              capabilities: { experimentalApi: false },
            },
          }),
        (m, write) => {
          if (m.id === 1) {
            write({ method: 'initialized' });
            write({
              method: 'thread/start',
              id: 2,
              params: { cwd, approvalPolicy: 'on-request', sandbox: 'workspace-write', model: 'gpt-5.5' },
            });
          } else if (m.id === 2) {
            threadId = String(((m.result as Record<string, unknown>).thread as Record<string, unknown>).id);
            write({
              method: 'turn/start',
              id: 3,
              params: { threadId, input: [{ type: 'text', text: 'Say done.', text_elements: [] }] },
            });
          }
          return m.method === 'turn/completed';
        },
      );
    },
  };
}

async function neoTurn(subject: Subject, cwd: string): Promise<number> {
  const start = performance.now();
  const session = await subject.transport.start({
    sessionId: 'cs_bench',
    cwd,
    brief: 'Say done.',
    posture: 'acceptEdits',
    descriptor: subject.descriptor,
    model: subject.model,
    env: subject.env,
  });
  let end: string | undefined;
  for await (const event of session.events) {
    if (
      event.type === 'turn_complete' ||
      event.type === 'ended' ||
      (event.type === 'error' && event.transient !== true)
    ) {
      end = event.type === 'error' ? `error: ${event.message}` : event.type;
      break;
    }
  }
  const elapsed = performance.now() - start;
  await session.stop();
  if (end !== 'turn_complete')
    throw new Error(`${subject.id} through neo did not complete its turn (${end ?? 'stream ended'})`);
  return elapsed;
}

async function directTurn(subject: Subject, cwd: string): Promise<number> {
  const start = performance.now();
  await subject.direct(cwd);
  return performance.now() - start;
}

async function measure(make: (server: ModelServer) => Subject): Promise<Figure> {
  const server = await startModelServer({ script: SCRIPT });
  try {
    const subject = make(server);
    const cwd = join(work, `${subject.id}-repo`);
    mkdirSync(cwd, { recursive: true });
    await execa('git', ['init', '-q'], { cwd });
    // One untimed warm-up each: the first run of a CLI writes its config and caches.
    await neoTurn(subject, cwd);
    await directTurn(subject, cwd);
    const medians = await interleave(
      size.reps,
      () => neoTurn(subject, cwd),
      () => directTurn(subject, cwd),
    );
    return {
      name: `${subject.id} turn (${subject.label}, text-only turn, spawn to turn end)`,
      neo: medians.neo,
      baseline: medians.baseline,
      unit: 'ms',
    };
  } finally {
    await server.close();
  }
}

try {
  const figures = [await measure(claudeSubject), await measure(codexSubject)];
  for (const figure of figures) report(figure);
  const worst = Math.max(...figures.map(ratio));
  console.log(
    `summary: transport adapters, worst ratio ${worst.toFixed(2)} over ${figures.length} figures (goal ≤ 1.10: ${worst <= 1.1 ? 'met' : 'not met'})`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
