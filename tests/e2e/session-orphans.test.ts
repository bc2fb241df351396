/**
 * kill -9 of the session daemon: the commands of its sessions do not outlive the next daemon,
 * a tail of one of its sessions returns within a poll, and a read calls the session an orphan.
 */
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../contract/processes.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { waitForOutput } from './flow-helpers.js';

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

const LINGER = `turns:\n  - - run: { command: 'echo $$ > cmd.pid; exec sleep 300' }\n    - say: started it\n`;

describe('a session daemon killed with SIGKILL', () => {
  it('its session commands are stopped by the next daemon; tail returns and read says orphan', async () => {
    const home = await tempDir('neo-orphan-home-');
    homes.push(home);
    const cwd = await tempDir('neo-orphan-cwd-');
    await writeFile(join(cwd, 'linger.yaml'), LINGER);
    const env = { NEO_HOME: home };
    const neo = (...args: string[]) => runNeo(args, { cwd, env, timeout: 30_000 });
    const started = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      'linger.yaml',
      '--brief',
      'b',
      '--max-posture',
      'full',
      '--posture',
      'full',
      '--json',
    );
    expect(started.exitCode).toBe(0);
    const sessionId = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;
    let command = 0;
    while (!(command > 0 && isAlive(command))) {
      command = Number((await readFile(join(cwd, 'cmd.pid'), 'utf8').catch(() => '')).trim());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const daemon = (JSON.parse((await neo('session', 'daemon', '--status')).stdout) as { pid: number }).pid;
    // A tail that follows the live session when its daemon dies, and one started afterwards.
    const tailSession = () =>
      execa(process.execPath, [NEO_BIN, 'sessions', 'tail', sessionId], {
        cwd,
        env: { NO_COLOR: '1', ...env },
        reject: false,
        timeout: 10_000,
      });
    const following = tailSession();
    await waitForOutput(following, /tool_use\s+run/);
    process.kill(daemon, 'SIGKILL');
    const killedAt = Date.now();
    while (isAlive(daemon)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(command)).toBe(true);

    // Each notices within a poll that nothing will ever be written again.
    const orphan = new RegExp(
      `^session ${sessionId} is an orphan: the process that hosted it \\(pid ${daemon}, started at tick \\d+\\) died while the session was live$`,
    );
    for (const tail of [await following, await tailSession()]) {
      expect(tail.timedOut).toBe(false);
      expect(tail.exitCode).toBe(1);
      expect(tail.stderr).toMatch(orphan);
    }
    expect(Date.now() - killedAt).toBeLessThan(5_000);

    // A read calls it an orphan, never "stopped".
    const read = await neo('session', 'read', sessionId);
    expect(read.exitCode).not.toBe(0);
    expect(read.stderr).toContain('SESSION_ORPHANED');
    expect(read.stderr).not.toContain('was stopped');

    // The next daemon stops what the dead one left running before it hosts anything.
    await writeFile(join(cwd, 'say.yaml'), 'turns:\n  - - say: hi\n');
    const next = await neo('session', 'start', '--backend', 'script', '--script', 'say.yaml', '--brief', 'b');
    expect(next.exitCode).toBe(0);
    expect(isAlive(command)).toBe(false);
    expect(await readFile(join(home, 'session-daemon.log'), 'utf8')).toMatch(
      /code_session_orphan_processes_stopped .*agent command \(group \d+\)/,
    );
    const list = await neo('sessions', 'list');
    expect(list.stdout).toMatch(new RegExp(`${sessionId.slice(0, 12)}\\s+orphaned`));
  });
});
