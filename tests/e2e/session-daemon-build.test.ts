/**
 * The session daemon outlives the command that started it, so it must not impose that command's
 * world on later ones: each start carries the caller's environment, and a daemon of another
 * build is restarted (or, while it hosts live sessions, refused), never reused.
 */
import { execa } from 'execa';
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

async function waitForFile(path: string): Promise<string> {
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text !== '') return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the session daemon and the command that talks to it', () => {
  it("a start runs with the caller's environment, not the one the daemon was started with", async () => {
    const home = await tempDir('neo-env-home-');
    homes.push(home);
    const cwd = await tempDir('neo-env-cwd-');
    const start = (name: string, probe: string) =>
      writeFile(
        join(cwd, `${name}.yaml`),
        // TZ: a variable every agent command keeps (its environment is an allowlist).
        `turns:\n  - - run: { command: 'echo "$TZ" > ${name}.txt' }\n`,
      ).then(() =>
        runNeo(
          [
            'session',
            'start',
            '--backend',
            'script',
            '--script',
            `${name}.yaml`,
            '--brief',
            'b',
            '--max-posture',
            'full',
            '--posture',
            'full',
          ],
          { cwd, env: { NEO_HOME: home, TZ: probe }, timeout: 30_000 },
        ),
      );
    expect((await start('first', 'one')).exitCode).toBe(0);
    expect(await waitForFile(join(cwd, 'first.txt'))).toBe('one\n');
    expect((await start('second', 'two')).exitCode).toBe(0);
    expect(await waitForFile(join(cwd, 'second.txt'))).toBe('two\n');
  });

  it('a daemon of another build is refused while it hosts sessions, and replaced once it hosts none', async () => {
    // Another install of neo: the same bundle under another version.
    const other = await tempDir('neo-other-install-');
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await writeFile(join(other, 'package.json'), JSON.stringify({ ...manifest, version: '0.0.1-other' }));
    await cp(join(ROOT, 'dist'), join(other, 'dist'), { recursive: true });
    for (const name of ['node_modules', 'definitions', 'personas', 'schemas'])
      await symlink(join(ROOT, name), join(other, name));
    const otherBin = join(other, 'dist', 'bin', 'neo.js');

    const home = await tempDir('neo-build-home-');
    homes.push(home);
    const cwd = await tempDir('neo-build-cwd-');
    await writeFile(join(cwd, 'say.yaml'), 'turns:\n  - - say: hi\n');
    const env = { NO_COLOR: '1', NEO_HOME: home };
    const neoWith = (bin: string, ...args: string[]) =>
      execa(process.execPath, [bin, ...args], { cwd, env, reject: false, timeout: 30_000 });
    const startArgs = ['session', 'start', '--backend', 'script', '--script', 'say.yaml', '--brief', 'b', '--json'];

    const old = await neoWith(otherBin, ...startArgs);
    expect(old.exitCode).toBe(0);
    const oldSession = (JSON.parse(old.stdout) as { sessionId: string }).sessionId;
    const oldStatus = JSON.parse((await neoWith(otherBin, 'session', 'daemon', '--status')).stdout) as {
      pid: number;
      version: string;
    };
    expect(oldStatus.version).toBe('0.0.1-other');

    const refused = await neoWith(NEO_BIN, ...startArgs);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error\\[SESSION_DAEMON_VERSION\\]: the session daemon of this NEO_HOME \\(pid ${oldStatus.pid}\\) runs neo 0\\.0\\.1-other\\+\\S+, not this neo \\(${manifest.version.replace(/\./g, '\\.')}\\+\\S+\\), and hosts 1 live session\\(s\\)`,
      ),
    );

    expect((await neoWith(otherBin, 'session', 'stop', oldSession)).exitCode).toBe(0);
    const replaced = await neoWith(NEO_BIN, ...startArgs);
    expect(replaced.stderr).toBe('');
    expect(replaced.exitCode).toBe(0);
    const status = JSON.parse((await neoWith(NEO_BIN, 'session', 'daemon', '--status')).stdout) as {
      pid: number;
      version: string;
    };
    expect(status.version).toBe(manifest.version);
    expect(status.pid).not.toBe(oldStatus.pid);
  });
});
