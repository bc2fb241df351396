/**
 * ACP's file methods for a confined agent, through the neo binary: neo answers fs/read_text_file
 * and fs/write_text_file itself, so at posture full (any path allowed) an agent in bwrap could use
 * neo to read the user's key and write into the checkout. The operation runs in the agent's own
 * sandbox instead: neither the key nor the checkout is there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_BINARIES, fakeWithEnv } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const KEY = 'PRIVATE KEY OF THE USER';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isDirectory()) out.push(...filesUnder(path));
    else if (info?.isFile()) out.push(path);
  }
  return out;
}

describe('an ACP agent in bwrap asks neo for a path outside', () => {
  it('at posture full: the read finds no key and the write never reaches the checkout', async () => {
    const root = await tempDir('neo-e2e-acp-fs-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    const user = join(root, 'user');
    await writeTree(user, { '.ssh/id_rsa': `${KEY}\n` });
    await writeTree(repo, {
      'README.md': 'hello\n',
      'plan.yaml': [
        'name: acp-fs',
        'sandbox: bwrap',
        'defaults: { backend: droid, maxPosture: full, posture: full, maxRounds: 2 }',
        'steps:',
        '  - id: work',
        '    brief: Write the file.',
        '    requireChange: false',
        '',
      ].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        HOME: user,
        FACTORY_API_KEY: 'fk-test',
        NEO_DROID_BIN: fakeWithEnv(
          FAKE_BINARIES.acp,
          {
            FAKE_ACP_MODES: 'normal,spec,auto-low,auto-medium,auto-high',
            FAKE_ACP_AUTO_MODES: 'auto-high',
            FAKE_CLI_HOME: join(root, 'fake-state'),
            FAKE_CLI_READ_FROM: join(user, '.ssh', 'id_rsa'),
            FAKE_CLI_WRITE_TO: join(repo, 'README.md'),
          },
          root,
        ),
      },
    });
    expect(result.stdout + result.stderr).toMatch(/"type":"summary"/);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    const leaked = filesUnder(home).filter((file) => readFileSync(file, 'utf8').includes(KEY));
    expect(leaked).toEqual([]);
    expect(result.stdout).not.toContain(KEY);
  });
});
