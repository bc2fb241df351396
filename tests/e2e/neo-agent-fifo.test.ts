/**
 * neo's own agent reads and edits files from neo's process, after its confined `exec` may have
 * put anything in the workspace: a named pipe there made `read_file` (and `edit`) wait in the
 * thread pool for a writer that never came — the turn never ended, and a few such reads took
 * every thread of the pool, which neo's own file I/O shares. The file tools open non-blocking and
 * refuse a named pipe.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("neo's own agent on a named pipe its exec made", () => {
  it('read_file and edit refuse it at once; the turn goes on', async () => {
    server = await startModelServer({
      script: {
        turns: [
          { tools: [{ name: 'exec', arguments: { command: 'mkfifo pipe.txt' } }] },
          {
            tools: [
              { name: 'read_file', arguments: { path: 'pipe.txt' } },
              { name: 'edit', arguments: { path: 'pipe.txt', old_string: 'a', new_string: 'b' } },
            ],
          },
          { text: 'done' },
        ] as never,
      },
    });
    const root = await tempDir('neo-e2e-neo-fifo-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'work.flow.yaml': [
        'name: work',
        'sandbox: bwrap',
        'defaults: { backend: neo, maxPosture: full, posture: full, maxRounds: 2 }',
        'steps:',
        '  - { id: work, brief: do the work, requireChange: false }',
        '',
      ].join('\n'),
    });
    await writeTree(home, {
      'neo.yaml': scriptedAgentConfig(server.url),
    });
    await commitAll(repo);
    const result = await runNeo(['flow', 'run', 'work.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, HOME: join(root, 'user'), NEO_TEST_KEY: 'sk-test' },
      timeout: 40_000,
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const sent = server.requests.map((r) => JSON.stringify(r.body)).join('\n');
    expect(sent).toContain('named pipe');
  });
});
