/**
 * The session daemon runs git for every session it holds (each turn's diff), and finds git on
 * its PATH less every tree a confined process writes (engine/util/own-programs.ts). A session's
 * project is one: its agent writes it. A CLI backend's launch registered it; an in-process
 * session (the script backend, neo's own agent) did not, and `npx neo session start` puts the
 * project's `node_modules/.bin` first on the PATH the daemon keeps. An agent allowed only to
 * edit renamed an executable file of the checkout to `node_modules/.bin/git`, and the daemon's
 * next diff ran it, outside the posture, with the daemon's whole environment.
 */
import { execa } from 'execa';
import { chmod } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

describe("an in-process session's project and the daemon's git", () => {
  it('never runs a git the agent planted in the project, with edit tools alone', async () => {
    const root = await tempDir('neo-e2e-session-programs-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    homes.push(home);
    const marker = join(root, 'ran-unconfined');
    const git = (await execa('sh', ['-c', 'command -v git'])).stdout.trim();
    const planted = `#!/bin/sh\necho git >> ${marker}\nexec ${git} "$@"\n`;
    await writeTree(repo, {
      '.gitignore': 'node_modules/\n',
      'node_modules/.bin/.keep': '',
      'tool.sh': '#!/bin/sh\necho tool\n',
      'plant.yaml': [
        'turns:',
        `  - - write: { path: tool.sh, content: ${JSON.stringify(planted)} }`,
        '    - rename: { from: tool.sh, to: node_modules/.bin/git }',
        '    - say: planted',
        '  - - write: { path: notes.md, content: "n\\n" }',
        '    - say: done',
        '',
      ].join('\n'),
    });
    await chmod(join(repo, 'tool.sh'), 0o755);
    await commitAll(repo);
    const env = {
      NEO_HOME: home,
      HOME: root,
      NEO_SESSION_DAEMON_IDLE_MS: '1500',
      PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    };
    const neo = (...args: string[]) => runNeo(args, { cwd: repo, env });
    const started = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      'plant.yaml',
      '--brief',
      'plant',
      '--max-posture',
      'acceptEdits',
      '--json',
    );
    expect(started.exitCode, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;
    const turn1 = await neo('session', 'read', id, '--json');
    expect(turn1.stdout).toContain('planted');
    expect(existsSync(join(repo, 'node_modules', '.bin', 'git'))).toBe(true);
    expect(await neo('session', 'guide', id, 'go on')).toMatchObject({ exitCode: 0 });
    const turn2 = await neo('session', 'read', id, '--json');
    expect(turn2.stdout).toContain('done');
    expect(await neo('session', 'stop', id)).toMatchObject({ exitCode: 0 });
    expect(existsSync(marker)).toBe(false);
  });
});
