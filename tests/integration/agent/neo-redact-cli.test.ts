/**
 * neo's own agent keeps no secret of its environment: a token the agent reads from a file is
 * redacted in what the session stores (events and the agent's transcript) and in what it shows,
 * the same redactor as every other backend's. Needs `npm run build` first.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../../engine/model-server/index.js';
import { runNeo } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp.js';

const TOKEN = 'ghp_e2eTokenValue0123456789';
let server: ModelServer | undefined;
let home: string | undefined;

afterEach(async () => {
  if (home !== undefined) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: home } });
  await server?.close();
  server = undefined;
  home = undefined;
});

describe('neo session --backend neo keeps environment secrets out of the store', () => {
  it('a token read from a file is redacted in the transcript, the events and session read', async () => {
    server = await startModelServer({
      script: {
        turns: [
          { text: 'Reading the config.', tools: [{ name: 'read_file', arguments: { path: 'config.txt' } }] },
          { when: { toolResult: 'token=' }, text: 'The config holds a token.' },
        ],
      },
    });
    home = await tempDir('neo-redact-home-');
    const repo = await tempDir('neo-redact-repo-');
    await execa('git', ['init', '-q'], { cwd: repo });
    await writeFile(join(repo, 'config.txt'), `token=${TOKEN}\n`);
    await writeFile(
      join(home, 'neo.yaml'),
      `providers:\n  scripted:\n    api: anthropic\n    baseUrl: ${server.url}\n    apiKey: \${NEO_CLI_KEY}\nagent:\n  provider: scripted\n  model: scripted-model\n`,
    );
    const env = {
      NEO_HOME: home,
      NEO_CLI_KEY: 'sk-cli-key-0a1b2c3d',
      GITHUB_TOKEN: TOKEN,
      NEO_SESSION_DAEMON_IDLE_MS: '1500',
    };
    const started = await runNeo(['session', 'start', '--backend', 'neo', '--brief', 'read the config', '--json'], {
      cwd: repo,
      env,
    });
    expect(started.exitCode, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;
    const read = await runNeo(['session', 'read', id, '--json'], { cwd: repo, env });
    expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'turn_complete', text: 'The config holds a token.' });
    await runNeo(['session', 'stop', id], { cwd: repo, env });

    const stored = [];
    for (const entry of await readdir(join(home, 'code-sessions', id), { withFileTypes: true, recursive: true }))
      if (entry.isFile()) stored.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
    const all = stored.join('\n');
    expect(all).toContain('token=[redacted ${GITHUB_TOKEN}]');
    expect(all).not.toContain(TOKEN);
    // The model itself was sent the redacted text too: what the transcript holds is what it saw.
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(TOKEN);
  });
});
