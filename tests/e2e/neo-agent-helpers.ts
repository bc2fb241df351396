/**
 * A repository, a NEO_HOME whose neo.yaml points neo's own agent at an in-test scripted model
 * server, and `neo` bound to both: for the e2e tests of the agent's subagents, pruner, undo and
 * checklist. Each test's cleanup stops the session daemon and the model server.
 */
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

type RunResult = Awaited<ReturnType<typeof runNeo>>;

export interface AgentProject {
  repo: string;
  home: string;
  server: ModelServer;
  env: Record<string, string>;
  neo(args: string[]): Promise<RunResult>;
  /** `neo … --json`, parsed. */
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  close(): Promise<void>;
}

export async function agentProject(
  turns: unknown[],
  options: { files?: Record<string, string>; agentYaml?: string } = {},
): Promise<AgentProject> {
  const server = await startModelServer({ script: { turns: turns as never } });
  const root = await tempDir('neo-e2e-agent-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, { 'README.md': 'hello\n', ...options.files });
  await writeTree(home, {
    'neo.yaml': [
      'providers:',
      '  scripted:',
      '    api: anthropic',
      `    baseUrl: ${server.url}`,
      '    apiKey: ${NEO_TEST_KEY}',
      'agent:',
      '  provider: scripted',
      '  model: scripted-model',
      ...(options.agentYaml ?? '')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => `  ${l}`),
      '',
    ].join('\n'),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, NEO_TEST_KEY: 'sk-test', NEO_SESSION_DAEMON_IDLE_MS: '1500' };
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env });
  return {
    repo,
    home,
    server,
    env,
    neo,
    async json<T>(args: string[]): Promise<T> {
      const result = await neo([...args, '--json']);
      if (result.exitCode !== 0) throw new Error(`neo ${args.join(' ')}: exit ${result.exitCode}\n${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    async close() {
      await runNeo(['session', 'daemon', '--stop'], { env });
      await server.close();
    },
  };
}

/** The text of every message a logged request sent, joined. */
export function sentText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? []);
}

/** The tool names a logged Anthropic request offered. */
export function offeredTools(body: unknown): string[] {
  return ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
}
