/**
 * What environment an agent gets, through the neo binary: an allowlist, with any `sandbox:`. The
 * script backend's commands (an agent's commands) and an agent CLI never see another provider's
 * key, a CI token or a database URL from neo's environment, and a trust switch exported in the
 * user's shell is never passed on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_BINARIES, fakeWithEnv, readWireLog } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-not-for-agents',
  GITHUB_TOKEN: 'ghp_not_for_agents',
  NPM_TOKEN: 'npm_not_for_agents',
  DATABASE_URL: 'postgres://user:pw@db/prod',
};

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-agent-env-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { root, repo, home };
}

/** The names of the variables the script's command printed (`env | cut -d= -f1`), from its tool_result. */
function printedNames(home: string): string[] {
  const [session] = readdirSync(join(home, 'code-sessions')).filter((n) => n.startsWith('cs_'));
  const events = readFileSync(join(home, 'code-sessions', session!, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: { type: string; output?: string } });
  const output = events.find((e) => e.event.type === 'tool_result')!.event.output!;
  return output.split(/\s+/).filter((word) => /^[A-Z_][A-Z0-9_]*$/.test(word));
}

describe("the script backend's commands", () => {
  for (const sandbox of ['bwrap', 'none']) {
    it(`sandbox ${sandbox}: no key, token or database URL of neo's environment`, async () => {
      const { repo, home } = await project({
        'env.yaml': "turns:\n  - - run: { command: 'env | cut -d= -f1 | sort' }\n",
        'plan.yaml': `name: env\nsandbox: ${sandbox}\ndefaults: { backend: script, maxPosture: full, posture: full }\nsteps:\n  - id: work\n    brief: print it\n    script: env.yaml\n    requireChange: false\n`,
      });
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
        cwd: repo,
        env: { NEO_HOME: home, LANG: 'C.UTF-8', ...SECRETS },
      });
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      const names = printedNames(home);
      expect(names).toContain('PATH');
      expect(names).toContain('LANG');
      expect(names.filter((name) => name in SECRETS || name === 'NEO_HOME')).toEqual([]);
    });
  }
});

describe('an agent CLI', () => {
  it('gets its own credential only, and neo’s value for a trust switch, sandboxed or not', async () => {
    const { root, repo, home } = await project({
      'plan.yaml':
        'name: env\ndefaults: { backend: gemini, maxPosture: acceptEdits }\nsteps:\n  - id: work\n    brief: say hi\n    requireChange: false\n',
    });
    const log = join(root, 'wire.jsonl');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        ...SECRETS,
        GEMINI_API_KEY: 'its own key',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        NEO_GEMINI_BIN: fakeWithEnv(
          FAKE_BINARIES.acp,
          {
            FAKE_CLI_HOME: join(root, 'fake-state'),
            FAKE_CLI_LOG: log,
            FAKE_ACP_AUTO_MODES: 'default',
            FAKE_CLI_LOG_ENV: [
              ...Object.keys(SECRETS),
              'GEMINI_API_KEY',
              'GEMINI_CLI_TRUST_WORKSPACE',
              'NEO_HOME',
            ].join(','),
          },
          root,
        ),
      },
    });
    expect(result.stdout + result.stderr).toMatch(/"type":"summary"/);
    expect(readWireLog(log).find((r) => r.dir === 'argv')!.env).toEqual({
      ANTHROPIC_API_KEY: null,
      GITHUB_TOKEN: null,
      NPM_TOKEN: null,
      DATABASE_URL: null,
      NEO_HOME: null,
      GEMINI_API_KEY: 'its own key',
      GEMINI_CLI_TRUST_WORKSPACE: 'false',
    });
  });
});
