/**
 * A session started by hand (or from the control plane) names no process bound, and an agent
 * CLI that floods the machine with processes must still stop: it gets a flow step's default
 * bound (1024), is killed at it, and the session says so; nothing it started is left.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { FAKE_BINARIES, fakeWithEnv } from '../contract/fake-backends.js';
import { git } from './flow-helpers.js';

function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (state !== 'Z' && cmdline.split('\0').includes(marker)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('a session started by hand has a process bound', () => {
  it('a CLI flooding past the default bound of 1024 is killed and the session says so, nothing left', async () => {
    const marker = '66.25';
    const home = await tempDir('neo-e2e-session-bound-');
    const repo = await tempDir('neo-e2e-session-bound-repo-');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(
      repo,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'init',
    );
    const bin = fakeWithEnv(
      FAKE_BINARIES['claude-code'],
      { FAKE_CLI_BEHAVIOUR: 'flood', FAKE_CLI_FLOOD: '1100', FAKE_CLI_FLOOD_MARK: marker },
      await tempDir('neo-fake-bin-'),
    );
    const env = {
      NEO_HOME: home,
      NEO_SESSION_DAEMON_IDLE_MS: '1500',
      NEO_CLAUDE_CODE_BIN: bin,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    };
    try {
      const started = await runNeo(['session', 'start', '--backend', 'claude-code', '--brief', 'hello', '--json'], {
        cwd: repo,
        env,
      });
      const said = started.stdout + started.stderr;
      if (started.exitCode === 0) {
        // Started before the flood hit the bound: the read of its first turn says how it ended.
        const id = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;
        const read = await runNeo(['session', 'read', id, '--json'], { cwd: repo, env });
        expect(read.stdout + read.stderr).toMatch(/hit its limit of 1024 processes/);
      } else expect(said).toMatch(/hit its limit of 1024 processes/);
      expect(processesWith(marker)).toEqual([]);
    } finally {
      await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: home } });
    }
  });
});
