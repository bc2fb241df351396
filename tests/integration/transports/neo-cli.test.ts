import { existsSync, readFileSync } from 'node:fs';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp.js';
import { FAKE_BINARIES, fakeWithEnv } from '../../contract/fake-backends.js';

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

/** The agent of this test exists only as a data file in NEO_HOME. */
const MY_AGENT = `
displayName: My Agent
description: An ACP agent added as a data file, with no code.
protocol: acp
command:
  bin: ${FAKE_BINARIES.acp}
  args: ["--acp"]
  versionArgs: ["--version"]
  install: npm install -g my-agent
postureMap:
  plan: { mode: plan }
  default: { mode: default }
  acceptEdits: { mode: acceptEdits }
liveControl: { guidance: next-turn, interrupt: true, setPosture: true }
resume: { supported: true, mechanism: session/load }
clarifySupport: true
granularity: stream
honorsAllowedTools: false
costProfile: metered
modelSelection: per-session
editToolNames: [edit, delete, move]
environment: { keep: [FAKE_CLI_HOME] }
`;

describe('neo backends / neo session over the real adapters', () => {
  it(
    'neo backends list probes each backend: version from the binary, install hint when missing',
    { timeout: 120_000 },
    async () => {
      const home = await tempDir('neo-home-');
      const bin = await tempDir('neo-bin-');
      const result = await runNeo(['backends', 'list', '--json'], {
        cwd: home,
        env: {
          NEO_HOME: home,
          PATH: `${bin}:${join(process.execPath, '..')}`,
          NEO_CLAUDE_CODE_BIN: FAKE_BINARIES['claude-code'],
          NEO_CODEX_BIN: FAKE_BINARIES.codex,
          NEO_GEMINI_BIN: FAKE_BINARIES.acp,
        },
      });
      expect(result.exitCode).toBe(0);
      const byId = Object.fromEntries(
        (JSON.parse(result.stdout) as Array<{ id: string; availability: Record<string, unknown> }>).map((b) => [
          b.id,
          b.availability,
        ]),
      );
      expect(byId['claude-code']).toMatchObject({
        available: true,
        status: 'ok',
        version: '2.1.332',
        binaryPath: FAKE_BINARIES['claude-code'],
      });
      expect(byId.codex).toMatchObject({ available: true, status: 'ok', version: '0.171.0' });
      expect(byId.gemini).toMatchObject({ available: true, status: 'ok', version: '1.2.3' });
      expect(byId.copilot).toEqual({
        available: false,
        status: 'missing',
        detail: '"copilot" not found',
        hint: 'install: npm install -g @github/copilot; or set NEO_COPILOT_BIN',
      });
      expect(byId.script).toMatchObject({ available: true, status: 'ok' });
      const text = await runNeo(['backends', 'list', '--no-probe'], { cwd: home, env: { NEO_HOME: home } });
      expect(text.stdout.split('\n')[0]).toMatch(
        /^BACKEND\s+PROTOCOL\s+POSTURES\s+CLARIFY\s+GUIDANCE\s+INTERRUPT\s+SET POSTURE\s+RESUME\s+MODEL\s+EFFORT\s+ALLOWED TOOLS\s+COST$/,
      );
      expect(await runNeo(['backends', 'doc', '--check'], { cwd: home, env: { NEO_HOME: home } })).toMatchObject({
        exitCode: 0,
      });
    },
  );

  it(
    'an ACP agent added as one data file is listed and drives a whole session through neo',
    { timeout: 180_000 },
    async () => {
      const home = await tempDir('neo-home-');
      homes.push(home);
      const repo = await tempDir('neo-repo-');
      await mkdir(join(home, 'definitions', 'backends'), { recursive: true });
      await writeFile(join(home, 'definitions', 'backends', 'my-agent.yaml'), MY_AGENT);
      const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500', FAKE_CLI_HOME: join(home, 'fake-state') };
      const json = async (...args: string[]) => {
        const result = await runNeo([...args, '--json'], { cwd: repo, env });
        if (result.exitCode !== 0) throw new Error(`neo ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
        return JSON.parse(result.stdout) as Record<string, unknown>;
      };
      const listed = (
        JSON.parse((await runNeo(['backends', 'list', '--json'], { cwd: repo, env })).stdout) as Array<{
          id: string;
          layer: string;
          availability: unknown;
        }>
      ).find((b) => b.id === 'my-agent');
      expect(listed).toMatchObject({ layer: 'user', availability: { available: true, version: '1.2.3' } });

      const started = await json(
        'session',
        'start',
        '--backend',
        'my-agent',
        '--brief',
        'Create hello.txt',
        '--max-posture',
        'default',
      );
      const id = started.sessionId as string;
      const question = await json('session', 'read', id);
      expect(question).toMatchObject({
        kind: 'clarification',
        toolName: 'edit',
        input: { path: join(repo, 'hello.txt'), content: 'hello from fake acp\n' },
      });
      await json('session', 'answer', id, question.clarificationId as string, '--allow');
      expect(await json('session', 'read', id)).toMatchObject({
        kind: 'turn_complete',
        text: 'Created hello.txt.',
        costUsd: 0.004,
      });
      expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello from fake acp\n');
      await json('session', 'guide', id, 'Now stop.');
      expect(await json('session', 'read', id)).toMatchObject({
        kind: 'turn_complete',
        text: 'Noted: Now stop.',
        costUsd: 0.004,
      });
      await json('session', 'stop', id);
      expect(existsSync(join(repo, 'hello.txt'))).toBe(true);
    },
  );

  it(
    'claude-code through neo session: the fake claude answers a permission ask relayed by neo',
    { timeout: 180_000 },
    async () => {
      const home = await tempDir('neo-home-');
      homes.push(home);
      const repo = await tempDir('neo-repo-');
      const env = {
        NEO_HOME: home,
        NEO_SESSION_DAEMON_IDLE_MS: '1500',
        NEO_CLAUDE_CODE_BIN: fakeWithEnv(
          FAKE_BINARIES['claude-code'],
          { FAKE_CLI_HOME: join(home, 'fake-state') },
          home,
        ),
      };
      const json = async (...args: string[]) => {
        const result = await runNeo([...args, '--json'], { cwd: repo, env });
        if (result.exitCode !== 0) throw new Error(`neo ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
        return JSON.parse(result.stdout) as Record<string, unknown>;
      };
      const started = await json(
        'session',
        'start',
        '--backend',
        'claude-code',
        '--brief',
        'Create hello.txt',
        '--max-posture',
        'default',
      );
      const id = started.sessionId as string;
      const question = await json('session', 'read', id);
      expect(question).toMatchObject({ kind: 'clarification', toolName: 'Write' });
      await json('session', 'answer', id, question.clarificationId as string, '--deny', '--reason', 'not now');
      expect(await json('session', 'read', id)).toMatchObject({
        kind: 'turn_complete',
        text: 'The write was denied.',
        costUsd: 0.0125,
      });
      expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
      await json('session', 'stop', id);
    },
  );
});
