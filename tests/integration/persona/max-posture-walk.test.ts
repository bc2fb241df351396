/**
 * A persona's maxPosture, walked from its file to the flag Claude Code is started with: the
 * dispatch registers it as its scope's ceiling (the one channel; the persona's start does not
 * repeat it), the session takes it from there under the one ceiling rule (engine/posture
 * underCeiling), and the packaged claude-code descriptor's postureMap turns it into
 * `--permission-mode`. An ask above it meets the same rule and its one code.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { CodeSessionInput } from '../../../engine/session/index.js';
import { binaryEnvVar } from '../../../engine/transports/shared/binary.js';
import { FAKE_BINARIES, fakeWithEnv, readWireLog } from '../../contract/fake-backends.js';
import { personaHarness } from './harness.js';

function persona(maxPosture: string): string {
  return [
    '---',
    'description: Drives Claude Code under a ceiling.',
    'driver: true',
    `maxPosture: ${maxPosture}`,
    'maxRounds: 1',
    'decide: rules',
    'rules:',
    '  prefer: [claude-code]',
    '  otherwise: deny',
    '---',
    'You drive.',
    '',
  ].join('\n');
}

async function walk(maxPosture: string) {
  const h = await personaHarness({ agents: { guarded: persona(maxPosture) } });
  const log = join(h.home, 'wire.jsonl');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: h.home,
    [binaryEnvVar('claude-code')]: fakeWithEnv(
      FAKE_BINARIES['claude-code'],
      { FAKE_CLI_HOME: join(h.home, 'fake-state'), FAKE_CLI_LOG: log },
      h.home,
    ),
  };
  // The backend probe (list-backends) reads neo's own environment, the start the caller's.
  for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
  const starts: Array<Record<string, unknown>> = [];
  const constraints: object[] = [];
  const port = {
    execute: <I extends CodeSessionInput>(input: I, caller: { scope: string }) => {
      if (input.op === 'start') starts.push({ ...input });
      return h.service.execute(input, caller, { env });
    },
    setScopeConstraints: (scope: string, c: object) => {
      constraints.push(c);
      h.service.setScopeConstraints(scope, c);
    },
    releaseAllOwnedBy: (scope: string) => h.service.releaseAllOwnedBy(scope),
    onSessionEvent: h.service.onSessionEvent,
  };
  const { seen } = await h.run('guarded', { sessions: port, scope: 'persona:guarded:walk' });
  const argvs = readWireLog(log)
    .filter((r) => r.dir === 'argv')
    .map((r) => r.argv ?? [])
    .filter((argv) => !argv.includes('--version'));
  return { h, env, starts, constraints, seen, argvs };
}

afterEach(() => vi.unstubAllEnvs());

const modeOf = (argv: string[]) => argv[argv.indexOf('--permission-mode') + 1];

describe("a persona's maxPosture, from its file to Claude Code's --permission-mode", () => {
  test.each([
    ['plan', 'plan'],
    ['default', 'default'],
  ])('maxPosture %s reaches the CLI as --permission-mode %s, through the scope alone', async (maxPosture, mode) => {
    const { starts, constraints, seen, argvs } = await walk(maxPosture);
    // One channel: the ceiling is the scope's; the start does not carry it again.
    expect(constraints[0]).toMatchObject({ maxPosture });
    expect(starts).toHaveLength(1);
    expect(starts[0]).not.toHaveProperty('maxPosture');
    const started = seen.find((o) => o.type === 'started');
    expect(started).toMatchObject({ session: { maxPosture, posture: maxPosture } });
    expect(argvs.map(modeOf)).toEqual([mode]);
  });

  test('a start in that scope asking above it meets the one rule and its one code; no CLI starts', async () => {
    const { h, env, argvs } = await walk('default');
    h.service.setScopeConstraints('persona:guarded:again', { maxPosture: 'default' });
    for (const ask of [{ maxPosture: 'full' }, { initialPosture: 'acceptEdits' }]) {
      await expect(
        h.service.execute(
          { op: 'start', brief: 'b', backend: 'claude-code', ...ask },
          { scope: 'persona:guarded:again' },
          {
            env,
          },
        ),
      ).rejects.toMatchObject({ code: 'POSTURE_CEILING_EXCEEDED' });
    }
    const sessions = readWireLog(join(h.home, 'wire.jsonl')).filter((r) => r.dir === 'argv' && r.argv?.includes('-p'));
    expect(sessions).toHaveLength(argvs.length);
  });
});
