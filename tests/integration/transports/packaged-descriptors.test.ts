import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefinitions, type Backend, type DefinitionSet, type Posture } from '../../../engine/definitions/index.js';
import { createTransport, type StartSessionOptions } from '../../../engine/transports/index.js';
import { binaryEnvVar } from '../../../engine/transports/shared/binary.js';
import { EventReader, lastOf } from '../../contract/event-reader.js';
import { FAKE_BINARIES, fakeWithEnv, readWireLog } from '../../contract/fake-backends.js';
import { tempDir } from '../../helpers/temp.js';

/** The mode ids each real ACP agent announces (research/transports.md §0, §4.4, §5.4, §6.3). */
const AGENT_MODES: Record<string, string[]> = {
  copilot: ['agent', 'plan', 'autopilot'].map((m) => `https://agentclientprotocol.com/protocol/session-modes#${m}`),
  droid: ['normal', 'spec', 'auto-low', 'auto-medium', 'auto-high'],
  gemini: ['default', 'autoEdit', 'yolo', 'plan'],
  opencode: ['build', 'plan'],
};

let set: DefinitionSet;

beforeAll(async () => {
  const home = await tempDir('neo-home-');
  set = (await loadDefinitions({ cwd: home, home })).set;
});

async function openPackaged(
  id: string,
  posture: Posture,
  fakeBin: string,
  extraEnv: NodeJS.ProcessEnv = {},
  confined = false,
) {
  const definition = set.get('backend', id)!;
  const cwd = await tempDir('neo-pkg-cwd-');
  const home = await tempDir('neo-pkg-home-');
  const log = join(home, 'wire.jsonl');
  const transport = (await createTransport(definition))!;
  const options: StartSessionOptions = {
    sessionId: 'cs_pkg',
    cwd,
    brief: 'Create hello.txt.',
    posture,
    descriptor: definition.data,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      [binaryEnvVar(id)]: fakeWithEnv(
        fakeBin,
        { FAKE_CLI_HOME: join(home, 'state'), FAKE_CLI_LOG: log, ...extraEnv },
        home,
      ),
      ...extraEnv,
    },
    options: { idleTimeoutMs: 20_000, startTimeoutMs: 20_000, killGraceMs: 1_000 },
    // In bwrap the fake's folders (its wire log) stay visible and writable.
    ...(confined && {
      sessionDir: join(home, 'session'),
      sandbox: {
        kind: 'bwrap' as const,
        binds: [
          { path: cwd, write: true },
          { path: home, write: true },
        ],
        hide: [],
        network: false,
      },
    }),
  };
  const session = await transport.start(options);
  return { session, reader: new EventReader(session), log, descriptor: definition.data };
}

function received(log: string): Array<Record<string, unknown> & { method?: string; params?: Record<string, unknown> }> {
  return readWireLog(log)
    .filter((r) => r.dir === 'in')
    .map((r) => r.message ?? {});
}

describe('packaged descriptors drive their adapters', () => {
  it('claude-code: the descriptor args select the protocol once, and every posture maps to a --permission-mode', async () => {
    for (const posture of ['plan', 'default', 'acceptEdits', 'full'] as const) {
      // full runs confined: in neo's sandbox neo tells Claude Code so (IS_SANDBOX), even as root.
      const { session, reader, log } = await openPackaged(
        'claude-code',
        posture,
        FAKE_BINARIES['claude-code'],
        {},
        posture === 'full',
      );
      try {
        await reader.untilType('started');
        const argv = readWireLog(log).find((r) => r.dir === 'argv')!.argv!;
        expect(argv.filter((a) => a === '--input-format')).toHaveLength(1);
        // acceptEdits runs Claude Code's mode default: every edit asks, and neo allows those inside the workspace.
        const mode = { plan: 'plan', default: 'default', acceptEdits: 'default', full: 'bypassPermissions' }[posture];
        // Every command asks, in every posture.
        expect(argv.slice(8)).toEqual([
          '--settings',
          '{"permissions":{"ask":["Bash"]}}',
          '--setting-sources',
          'user',
          '--add-dir',
          expect.stringMatching(/neo-pkg-cwd-/),
          '--permission-mode',
          mode,
          ...(posture === 'full' ? ['--allow-dangerously-skip-permissions'] : []),
        ]);
      } finally {
        await session.stop();
      }
    }
  });

  it('codex: every posture is spelled as the app-server accepts it', async () => {
    const expected: Record<Posture, [string, string]> = {
      plan: ['never', 'read-only'],
      default: ['on-request', 'read-only'],
      acceptEdits: ['on-request', 'read-only'],
      full: ['never', 'danger-full-access'],
    };
    for (const posture of ['plan', 'default', 'acceptEdits', 'full'] as const) {
      const { session, reader, log } = await openPackaged('codex', posture, FAKE_BINARIES.codex);
      try {
        await reader.untilType('started');
        const start = received(log).find((m) => m.method === 'thread/start')!;
        expect([start.params?.approvalPolicy, start.params?.sandbox]).toEqual(expected[posture]);
      } finally {
        await session.stop();
      }
    }
  });

  for (const id of Object.keys(AGENT_MODES)) {
    it(`${id}: every mapped posture selects one of the agent's own modes`, async () => {
      const modes = AGENT_MODES[id]!;
      const descriptor = set.get('backend', id)!.data as Backend;
      for (const posture of Object.keys(descriptor.postureMap) as Posture[]) {
        const { session, reader, log } = await openPackaged(id, posture, FAKE_BINARIES.acp, {
          FAKE_ACP_MODES: modes.join(','),
          FAKE_CLI_LOG_ENV: 'OPENCODE_PERMISSION',
        });
        try {
          await reader.untilType('started');
          const wanted = descriptor.postureMap[posture]!.mode!;
          const modeId = modes.find((m) => m === wanted || m.endsWith(`#${wanted}`))!;
          const setMode = received(log)
            .filter((m) => m.method === 'session/set_mode')
            .map((m) => m.params?.modeId);
          expect(setMode, `${id} ${posture}`).toEqual(modeId === modes[0] ? [] : [modeId]);
          const env = readWireLog(log).find((r) => r.dir === 'argv')!.env;
          const permission = (
            descriptor.postureMap[posture]!.settings as { env?: { OPENCODE_PERMISSION?: unknown } } | undefined
          )?.env?.OPENCODE_PERMISSION;
          expect(env?.OPENCODE_PERMISSION ?? null).toBe(permission === undefined ? null : JSON.stringify(permission));
        } finally {
          await session.stop();
        }
      }
    });
  }

  it('opencode default posture: OpenCode permission rules come from OPENCODE_PERMISSION', async () => {
    const { session, reader, log } = await openPackaged('opencode', 'default', FAKE_BINARIES.acp, {
      FAKE_ACP_MODES: 'build,plan',
      FAKE_CLI_LOG_ENV: 'OPENCODE_PERMISSION',
    });
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      expect(clarify.toolName).toBe('edit');
      expect(readWireLog(log).find((r) => r.dir === 'argv')!.env).toEqual({
        OPENCODE_PERMISSION: '{"edit":"ask","bash":"ask","external_directory":"ask"}',
      });
    } finally {
      await session.stop();
    }
  });
});
