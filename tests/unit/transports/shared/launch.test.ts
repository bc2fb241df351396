import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../../engine/definitions/index.js';
import { binaryEnvVar, resolveBinary } from '../../../../engine/transports/shared/binary.js';
import { planLaunch, postureEnv, postureTarget } from '../../../../engine/transports/shared/launch.js';
import { clearProbeCache, extractVersion, probeCli } from '../../../../engine/transports/shared/probe.js';
import { EventChannel } from '../../../../engine/transports/shared/event-channel.js';
import { formatSeconds, readTuning } from '../../../../engine/transports/shared/tuning.js';
import { tempDir } from '../../../helpers/temp.js';

const descriptor: Backend = {
  description: 'x',
  protocol: 'acp',
  command: {
    bin: 'agent-x',
    versionArgs: ['--version'],
    install: 'npm install -g agent-x',
    authEnv: ['AGENT_KEY'],
    authHint: 'export AGENT_KEY',
  },
  postureMap: { default: { mode: 'ask', settings: { env: { RULES: { edit: 'ask' }, PLAIN: 'yes' } } } },
  clarifySupport: true,
  granularity: 'stream',
  honorsAllowedTools: false,
  costProfile: 'metered',
  modelSelection: 'none',
  env: { AGENT_HOME: '${HOME}/.agent' },
};

async function fakeBin(dir: string, name: string, script: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
  return file;
}

describe('binary resolution and probing', () => {
  it('names the override variable after the backend id', () => {
    expect(binaryEnvVar('claude-code')).toBe('NEO_CLAUDE_CODE_BIN');
    expect(binaryEnvVar('my.agent')).toBe('NEO_MY_AGENT_BIN');
  });

  it('prefers NEO_<ID>_BIN, then the PATH; a non-executable file does not count', async () => {
    const dir = await tempDir();
    const onPath = await fakeBin(dir, 'agent-x', 'echo agent-x 1.2.3');
    expect(resolveBinary('agent-x', descriptor, { PATH: dir })).toEqual({ path: onPath, source: 'path' });
    const other = await fakeBin(dir, 'other', 'echo other 9.9.9');
    expect(resolveBinary('agent-x', descriptor, { PATH: dir, NEO_AGENT_X_BIN: other })).toEqual({
      path: other,
      source: 'env',
    });
    await writeFile(join(dir, 'plain'), 'x');
    expect(resolveBinary('agent-x', descriptor, { PATH: '', NEO_AGENT_X_BIN: join(dir, 'plain') })).toBeUndefined();
  });

  it('probes: missing with the install hint, ok with the version and the auth hint, probe-failed on a bad exit', async () => {
    clearProbeCache();
    const dir = await tempDir();
    expect(await probeCli('agent-x', descriptor, { PATH: dir })).toEqual({
      available: false,
      status: 'missing',
      detail: '"agent-x" not found',
      hint: 'install: npm install -g agent-x; or set NEO_AGENT_X_BIN',
    });
    clearProbeCache();
    const bin = await fakeBin(dir, 'agent-x', 'echo "agent-x version 1.2.3"');
    expect(await probeCli('agent-x', descriptor, { PATH: dir })).toEqual({
      available: true,
      status: 'ok',
      binaryPath: bin,
      version: '1.2.3',
      hint: 'export AGENT_KEY',
    });
    expect(await probeCli('agent-x', descriptor, { PATH: dir, AGENT_KEY: 'k', NEO_AGENT_X_BIN: bin })).toEqual({
      available: true,
      status: 'ok',
      binaryPath: bin,
      version: '1.2.3',
    });
    const broken = await fakeBin(dir, 'broken', 'echo "boom" >&2; exit 4');
    expect(await probeCli('agent-x', descriptor, { PATH: dir, NEO_AGENT_X_BIN: broken })).toEqual({
      available: false,
      status: 'probe-failed',
      binaryPath: broken,
      detail: '--version failed (exit code 4): boom',
    });
    expect(extractVersion('codex-cli 0.171.0')).toBe('0.171.0');
    expect(extractVersion('2.1.332 (Claude Code)')).toBe('2.1.332');
    expect(extractVersion('GitHub Copilot CLI 1.0.102.')).toBe('1.0.102');
  });
});

describe('launch plans', () => {
  it('builds the child env from the allowlist, its own credential, the descriptor env and the posture env', async () => {
    const dir = await tempDir();
    const bin = await fakeBin(dir, 'agent-x', 'true');
    const plan = await planLaunch('agent-x', {
      sessionId: 's',
      cwd: dir,
      brief: 'b',
      posture: 'default',
      descriptor,
      env: {
        PATH: dir,
        HOME: '/home/u',
        AGENT_KEY: 'mine',
        OTHER_API_KEY: 'not its provider',
        GITHUB_TOKEN: 'a CI token',
        NEO_AGENT_X_BIN: bin,
      },
    });
    expect(plan).toEqual({
      file: bin,
      baseArgs: [],
      cwd: dir,
      confined: false,
      env: {
        PATH: dir,
        HOME: '/home/u',
        AGENT_KEY: 'mine',
        AGENT_HOME: '/home/u/.agent',
        RULES: '{"edit":"ask"}',
        PLAIN: 'yes',
      },
    });
    expect(postureEnv(undefined)).toEqual({});
  });

  it('fails closed on an unmapped posture and names the missing binary with its install command', async () => {
    expect(() => postureTarget('agent-x', descriptor, 'full')).toThrow(
      expect.objectContaining({
        code: 'TRANSPORT_POSTURE_UNSUPPORTED',
        message: 'agent-x cannot express posture full (its descriptor maps: default)',
      }),
    );
    await expect(
      planLaunch('agent-x', {
        sessionId: 's',
        cwd: '/',
        brief: 'b',
        posture: 'default',
        descriptor,
        env: { PATH: '' },
      }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'TRANSPORT_BINARY_MISSING',
        message: 'agent-x: executable "agent-x" not found',
        hint: 'install it with `npm install -g agent-x`, or point NEO_AGENT_X_BIN at the executable',
      }),
    );
  });

  it('reads tuning from the options bag, ignoring nonsense', () => {
    const base = { sessionId: 's', cwd: '/', brief: 'b', posture: 'default' as const, descriptor };
    expect(
      readTuning({
        ...base,
        options: { idleTimeoutMs: 500, killGraceMs: -1, startTimeoutMs: 'x', unreachableGiveUpMs: 5 },
      }),
    ).toEqual({
      idleTimeoutMs: 500,
      startTimeoutMs: 60_000,
      killGraceMs: 3_000,
      unreachableGiveUpMs: 5,
    });
    expect([formatSeconds(400), formatSeconds(1500), formatSeconds(600_000)]).toEqual(['0.4s', '1.5s', '600s']);
  });
});

describe('EventChannel', () => {
  it('delivers pushed items in order to one reader, ends after close, and ignores late pushes', async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    const reading = (async () => {
      const seen: number[] = [];
      for await (const n of channel) seen.push(n);
      return seen;
    })();
    channel.push(2);
    await new Promise((resolve) => setImmediate(resolve));
    channel.push(3);
    channel.close();
    channel.push(4);
    expect(await reading).toEqual([1, 2, 3]);
  });
});
