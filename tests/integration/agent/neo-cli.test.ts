/**
 * The neo backend end to end through the built `neo` binary: `neo session start --backend neo`
 * runs the agent in the session daemon against the scripted model server; a person reads turns,
 * answers a permission ask, guides with a model switch and stops. Needs `npm run build` first.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../../engine/model-server/index.js';
import { runNeo } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp.js';

const SECRET = 'sk-cli-secret-5e6f7a8b9c';
let server: ModelServer | undefined;
let home: string | undefined;

afterEach(async () => {
  if (home !== undefined) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: home } });
  await server?.close();
  server = undefined;
  home = undefined;
});

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await allFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe('neo session --backend neo (the binary)', () => {
  it('edits a file, asks before a command, takes guidance with a model switch, and keeps the key out of NEO_HOME', async () => {
    server = await startModelServer({
      script: {
        turns: [
          {
            text: 'Changing the greeting.',
            tools: [{ name: 'edit', arguments: { path: 'greet.ts', old_string: "'hello'", new_string: "'hi'" } }],
          },
          {
            when: { toolResult: 'edited greet.ts' },
            tools: [{ name: 'exec', arguments: { command: 'git status --short' } }],
          },
          { when: { toolResult: 'greet.ts' }, text: 'Greeting changed; git shows greet.ts modified.' },
          {
            when: { user: 'also say bye' },
            tools: [{ name: 'write_file', arguments: { path: 'bye.txt', content: 'bye\n' } }],
          },
          { when: { toolResult: 'created bye.txt' }, text: 'Added bye.txt.' },
        ],
      },
    });
    home = await tempDir('neo-cli-home-');
    const repo = await tempDir('neo-cli-repo-');
    await execa('git', ['init', '-q'], { cwd: repo });
    await writeFile(join(repo, 'greet.ts'), "export const greeting = 'hello';\n");
    await execa('git', ['add', '-A'], { cwd: repo });
    await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], { cwd: repo });
    await writeFile(
      join(home, 'neo.yaml'),
      `providers:\n  scripted:\n    api: anthropic\n    baseUrl: ${server.url}\n    apiKey: \${NEO_CLI_KEY}\nagent:\n  provider: scripted\n  model: scripted-model\n`,
    );
    const env = { NEO_HOME: home, NEO_CLI_KEY: SECRET, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
    const json = async (...args: string[]): Promise<Record<string, unknown>> => {
      const result = await runNeo([...args, '--json'], { cwd: repo, env });
      if (result.exitCode !== 0)
        throw new Error(
          `neo ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}\n${await readFile(join(home!, 'session-daemon.log'), 'utf8').catch(() => '')}`,
        );
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };

    const backends = (await json('session', 'backends')) as {
      backends: Array<{ id: string; availability: { status: string; detail?: string } }>;
    };
    expect(backends.backends.find((b) => b.id === 'neo')!.availability).toMatchObject({
      status: 'ok',
      detail: `provider scripted (anthropic) at ${server.url}, model scripted-model`,
    });

    const started = await json(
      'session',
      'start',
      '--backend',
      'neo',
      '--brief',
      'Change the greeting to hi',
      '--max-posture',
      'acceptEdits',
    );
    expect(started).toMatchObject({ backend: 'neo', posture: 'acceptEdits' });
    const id = started.sessionId as string;

    const ask = await json('session', 'read', id);
    expect(ask).toEqual({
      kind: 'clarification',
      clarificationId: expect.stringMatching(/^cl_/),
      toolName: 'exec',
      input: { command: 'git status --short' },
      ask: { kind: 'execute', toolName: 'exec', paths: [], command: 'git status --short' },
    });
    await json('session', 'answer', id, ask.clarificationId as string, '--allow');
    const turn1 = await json('session', 'read', id);
    expect(turn1).toMatchObject({
      kind: 'turn_complete',
      text: 'Greeting changed; git shows greet.ts modified.',
      turnDiff: { source: 'git', files: [{ path: 'greet.ts', status: 'M', insertions: 1, deletions: 1 }] },
    });
    expect(await readFile(join(repo, 'greet.ts'), 'utf8')).toBe("export const greeting = 'hi';\n");

    await json('session', 'guide', id, 'also say bye', '--model', 'bigger-model', '--effort', 'low');
    const turn2 = await json('session', 'read', id);
    expect(turn2).toMatchObject({
      kind: 'turn_complete',
      text: 'Added bye.txt.',
      turnDiff: { files: [{ path: 'bye.txt', status: 'A' }] },
    });
    const guided = server.requests.find((r) => JSON.stringify(r.body).includes('also say bye'))!;
    expect(guided.body).toMatchObject({ model: 'bigger-model', thinking: { type: 'enabled', budget_tokens: 2048 } });

    expect(await json('session', 'stop', id)).toMatchObject({ ok: true });
    const files = await allFiles(home);
    expect(files.some((f) => f.endsWith('events.jsonl'))).toBe(true);
    expect(files.some((f) => f.endsWith('agent-transcript.json'))).toBe(true);
    for (const file of files) {
      if (file.endsWith('neo.yaml')) continue;
      expect({ file, leaked: (await readFile(file, 'utf8')).includes(SECRET) }).toEqual({ file, leaked: false });
    }
  });
});
