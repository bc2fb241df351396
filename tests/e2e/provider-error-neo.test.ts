import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("neo flow run: neo's own agent and a provider error", () => {
  for (const status of [401, 403]) {
    it(`HTTP ${status} fails the step TRANSPORT_UNAUTHENTICATED, exit 5, and retry.on: transient does not try it again`, async () => {
      server = await startModelServer({
        script: { turns: [{ times: 'always', error: { status, message: 'Incorrect API key provided' } }] },
      });
      const root = await tempDir('neo-e2e-provider-neo-');
      const repo = join(root, 'repo');
      const home = join(root, 'home');
      await writeTree(repo, {
        'README.md': 'hello\n',
        'review.flow.yaml': [
          'name: review',
          'workspace: { isolation: inplace }',
          'defaults: { backend: neo, maxPosture: acceptEdits }',
          'steps:',
          '  - id: review',
          '    brief: review the README',
          '    requireChange: false',
          '    retry: { attempts: 3, backoff: 10ms, on: transient }',
          '',
        ].join('\n'),
      });
      await writeTree(home, {
        'neo.yaml': scriptedAgentConfig(server.url),
      });
      await git(repo, 'init', '-q', '-b', 'main');
      await git(repo, 'add', '-A');
      await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
      const result = await runNeo(['flow', 'run', 'review.flow.yaml'], {
        cwd: repo,
        env: { NEO_HOME: home, NEO_TEST_KEY: 'sk-test-rejected' },
      });
      expect(result.exitCode, result.stdout + result.stderr).toBe(5);
      expect(result.stdout).toMatch(
        new RegExp(`TRANSPORT_UNAUTHENTICATED: the agent failed: scripted ${status} .*Incorrect API key provided`),
      );
      // One model request: a rejected key is neither retried by the agent nor by the step's retry.
      expect(server.requests.filter((r) => r.path.includes('/messages')).length).toBe(1);
    });
  }
});
