/**
 * A trusted project's `.neo/.env` is read when a run starts. A confined step of an in-place run
 * can write the checkout, so it can leave a named pipe there: opening one for reading waits for a
 * writer, and every later `neo flow run` of the project hung before its first step. A `.env`
 * that is not a regular file now defines nothing, as a missing one does.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe('a named pipe planted as .neo/.env', () => {
  it('does not stall the next run of the trusted project', async () => {
    const root = await tempDir('neo-e2e-dotenv-fifo-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    await writeTree(repo, {
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        '  - { id: a, run: "mkdir -p .neo && mkfifo .neo/.env" }',
        '',
      ].join('\n'),
      'next.flow.yaml': 'name: next\nworkspace: { isolation: inplace }\nsteps:\n  - { id: b, run: "echo ran" }\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root }, timeout: 20_000 });
    expect((await neo(['trust'])).exitCode).toBe(0);
    const plant = await neo(['flow', 'run', 'plant.flow.yaml']);
    expect(plant.exitCode, plant.stdout + plant.stderr).toBe(0);

    const next = await neo(['flow', 'run', 'next.flow.yaml']);
    expect(next.exitCode, next.stdout + next.stderr).toBe(0);
    expect(next.stdout).toContain('step b succeeded');
  });
});
