import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Backend, Posture } from '../../engine/definitions/index.js';
import type { StartSessionOptions, Transport } from '../../engine/transports/index.js';
import { createAcpTransport } from '../../engine/transports/acp/index.js';
import { createClaudeCodeTransport } from '../../engine/transports/claude-code/index.js';
import { createCodexTransport } from '../../engine/transports/codex/index.js';
import { binaryEnvVar } from '../../engine/transports/shared/binary.js';
import { parseJsonl } from '../../engine/util/jsonl.js';

const here = dirname(fileURLToPath(import.meta.url));
export const FAKE_CLI_DIR = join(here, '..', 'fixtures', 'fake-clis');

/** The fake executable for each protocol. */
export const FAKE_BINARIES = {
  'claude-code': join(FAKE_CLI_DIR, 'fake-claude.mjs'),
  codex: join(FAKE_CLI_DIR, 'fake-codex.mjs'),
  acp: join(FAKE_CLI_DIR, 'fake-acp.mjs'),
} as const;

export type FakeProtocol = keyof typeof FAKE_BINARIES;

const common = {
  clarifySupport: true,
  granularity: 'stream',
  honorsAllowedTools: true,
  costProfile: 'metered',
} as const;

/** Descriptors the fakes are driven through (the packaged ones are checked separately). */
export const FAKE_DESCRIPTORS: Record<FakeProtocol, Backend> = {
  'claude-code': {
    ...common,
    description: 'Claude Code (fake CLI)',
    protocol: 'claude-code',
    command: {
      bin: 'claude',
      versionArgs: ['--version'],
      install: 'npm install -g @anthropic-ai/claude-code',
      authEnv: ['ANTHROPIC_API_KEY'],
      authHint: 'run `claude /login` or set ANTHROPIC_API_KEY',
    },
    postureMap: {
      plan: { mode: 'plan' },
      default: { mode: 'default' },
      acceptEdits: { mode: 'acceptEdits' },
      full: { mode: 'bypassPermissions' },
    },
    modelSelection: 'per-turn',
    editToolNames: ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'],
  },
  codex: {
    ...common,
    description: 'Codex app-server (fake CLI)',
    protocol: 'codex',
    command: {
      bin: 'codex',
      args: ['app-server'],
      versionArgs: ['--version'],
      install: 'npm install -g @openai/codex',
    },
    postureMap: {
      plan: { settings: { sandbox: 'read-only', approvalPolicy: 'never' } },
      default: { settings: { sandbox: 'read-only', approvalPolicy: 'on-request' } },
      acceptEdits: { settings: { sandbox: 'workspace-write', approvalPolicy: 'on-request' } },
      full: { settings: { sandbox: 'danger-full-access', approvalPolicy: 'never' } },
    },
    modelSelection: 'per-turn',
    pricing: { 'gpt-fake': { input: 1.25, cachedInput: 0.125, output: 10 } },
  },
  acp: {
    ...common,
    description: 'A generic ACP agent (fake CLI)',
    protocol: 'acp',
    command: { bin: 'fake-acp', args: ['--acp'], versionArgs: ['--version'], install: 'npm install -g fake-acp' },
    postureMap: {
      plan: { mode: 'plan' },
      default: { mode: 'default' },
      acceptEdits: { mode: 'acceptEdits' },
      full: { mode: 'yolo' },
    },
    modelSelection: 'per-turn',
  },
};

/** The backend id each fake is registered under. */
export const FAKE_IDS: Record<FakeProtocol, string> = { 'claude-code': 'claude-code', codex: 'codex', acp: 'fake-acp' };

/** A transport for the fake CLI of `protocol`. */
export function fakeTransport(protocol: FakeProtocol, descriptor: Backend = FAKE_DESCRIPTORS[protocol]): Transport {
  const backend = { id: FAKE_IDS[protocol], data: descriptor };
  switch (protocol) {
    case 'claude-code':
      return createClaudeCodeTransport(backend);
    case 'codex':
      return createCodexTransport(backend);
    case 'acp':
      return createAcpTransport(backend);
  }
}

export interface FakeRun {
  cwd: string;
  home: string;
  log: string;
  behaviour?: string;
  posture?: Posture;
  extraEnv?: NodeJS.ProcessEnv;
}

let wrappers = 0;

/**
 * An executable in `dir` that runs `fake` with the fakes' own knobs (FAKE_*, REPLAY_*) of `env`
 * set. A CLI's environment is an allowlist (engine/transports/shared/agent-env.ts), so the knobs
 * a test sets for neo never reach the fake by themselves: the wrapper, named as the backend's
 * NEO_<ID>_BIN, carries them.
 */
export function fakeWithEnv(fake: string, env: NodeJS.ProcessEnv, dir: string): string {
  const knobs = Object.entries(env).filter(
    (entry): entry is [string, string] => /^(FAKE_|REPLAY_)/.test(entry[0]) && entry[1] !== undefined,
  );
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const file = join(dir, `${basename(fake, '.mjs')}-${process.pid}-${++wrappers}.sh`);
  writeFileSync(
    file,
    `#!/bin/sh\n${knobs.map(([name, value]) => `export ${name}=${quote(value)}\n`).join('')}exec ${quote(fake)} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** StartSessionOptions that point the adapter at the fake through NEO_<ID>_BIN (a wrapper carrying its knobs). */
export function fakeStartOptions(
  protocol: FakeProtocol,
  run: FakeRun,
  overrides: Partial<StartSessionOptions> = {},
): StartSessionOptions {
  const descriptor = overrides.descriptor ?? FAKE_DESCRIPTORS[protocol];
  const knobs: NodeJS.ProcessEnv = {
    FAKE_CLI_HOME: join(run.home, 'fake-state'),
    FAKE_CLI_LOG: run.log,
    FAKE_CLI_BEHAVIOUR: run.behaviour ?? 'normal',
    ...run.extraEnv,
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: run.home,
    [binaryEnvVar(FAKE_IDS[protocol])]: fakeWithEnv(FAKE_BINARIES[protocol], knobs, run.home),
    ...knobs,
  };
  return {
    sessionId: 'cs_test',
    cwd: run.cwd,
    brief: 'Create hello.txt with a greeting.',
    posture: run.posture ?? 'default',
    descriptor,
    env,
    options: { idleTimeoutMs: 20_000, startTimeoutMs: 20_000, killGraceMs: 2_000 },
    ...overrides,
  };
}

/** Everything the fake logged: its argv, every line it read and wrote. */
export function readWireLog(file: string): Array<{
  pid: number;
  dir: string;
  message?: Record<string, unknown>;
  argv?: string[];
  line?: string;
  childPid?: number;
  env?: Record<string, unknown>;
}> {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // parseJsonl skips a record the fake is still appending.
  return parseJsonl<{ pid: number; dir: string }>(text).records;
}
