/**
 * An agent step that could not start here — neo's own agent without a key, a CLI that is not
 * installed, the script backend without a script — refuses the run before its worktree is made
 * or an earlier step runs (exit 2, nothing to clean), with what to do; `--dry-run` says the same.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

/** No key of any built-in provider, whatever the machine running the tests has. */
const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', GEMINI_API_KEY: '', OPENROUTER_API_KEY: '' };

async function repo(plan: string, files: Record<string, string> = {}) {
  const root = await tempDir('neo-e2e-preflight-');
  const dir = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(dir, { 'src/a.txt': 'a\n', 'plan.yaml': plan, ...files });
  await writeTree(home, {});
  await commitAll(dir);
  const neo = (args: string[], env: Record<string, string> = {}) =>
    runNeo(args, { cwd: dir, env: { NEO_HOME: home, ...NO_KEYS, ...env } });
  const nothingRan = async () => {
    expect(existsSync(join(home, 'worktrees'))).toBe(false);
    expect((await neo(['flow', 'list'])).stdout).toContain('no runs yet');
  };
  return { dir, home, neo, nothingRan };
}

/** A command step first, then the agent step: the command must not run before the refusal. */
const PLAN = (backend: string) => `name: late
defaults: { backend: ${backend} }
steps:
  - { id: prepare, run: "true" }
  - { id: fix, needs: [prepare], brief: fix it, requireChange: false }
`;

describe('an agent step that could not start here', () => {
  it("neo's own agent with no key refuses the run before anything ran, naming the keys", async () => {
    const { neo, nothingRan } = await repo(PLAN('neo'));
    const run = await neo(['flow', 'run', 'plan.yaml']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: late: step `fix` runs on backend `neo`, which cannot start here: no model provider is configured for the neo agent',
    );
    expect(run.stderr).toContain(
      'hint: set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENROUTER_API_KEY, or add providers: and agent.provider to NEO_HOME/neo.yaml',
    );
    await nothingRan();
    const dry = await neo(['flow', 'run', 'plan.yaml', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('warning: backend neo is not available here: no model provider is configured');
  });

  it('a CLI backend that is not installed refuses the run before anything ran, saying how to install it', async () => {
    const { neo, nothingRan } = await repo(PLAN('claude-code'));
    const run = await neo(['flow', 'run', 'plan.yaml'], { PATH: '/usr/bin:/bin', NEO_CLAUDE_CODE_BIN: '' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: late: step `fix` runs on backend `claude-code`, which cannot start here: Claude Code: executable "claude" not found',
    );
    expect(run.stderr).toContain(
      'hint: install it with `npm install -g @anthropic-ai/claude-code`, or point NEO_CLAUDE_CODE_BIN at the executable; or run it on a backend that works here: `--backend <id>` (`neo backends list` says which)',
    );
    await nothingRan();
  });

  it('the script backend with no script refuses the run before anything ran; --dry-run says so', async () => {
    const { neo, nothingRan } = await repo(PLAN('claude-code'));
    const run = await neo(['flow', 'run', 'plan.yaml', '--backend', 'script']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: late: step `fix` runs on the script backend and names no `script:` to play',
    );
    expect(run.stderr).toContain(
      "hint: give the step `script: <file>` (a YAML script the backend plays, relative to the plan's folder), or run the flow on another backend (`--backend <id>`)",
    );
    await nothingRan();
    const dry = await neo(['flow', 'run', 'plan.yaml', '--backend', 'script', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(
      'warning: a real run would refuse to start: step `fix` runs on the script backend and names no `script:` to play',
    );
  });

  it('a resume whose steps left to run could not start here is refused, and the run stays as it was', async () => {
    // A key at the start; the first step fails until `go` exists; the key is gone at the resume.
    const plan = `name: later
workspace: { isolation: inplace }
defaults: { backend: neo }
steps:
  - { id: gate, run: "test -f go" }
  - { id: fix, needs: [gate], brief: fix it, requireChange: false }
`;
    const { dir, home, neo } = await repo(plan);
    await writeTree(home, {
      'neo.yaml':
        'providers:\n  local: { api: anthropic, baseUrl: "http://127.0.0.1:9", apiKey: "${NEO_TEST_KEY}" }\nagent: { provider: local }\n',
    });
    const first = await neo(['flow', 'run', 'plan.yaml', '--json'], { NEO_TEST_KEY: 'sk-test' });
    expect(first.exitCode, first.stdout + first.stderr).toBe(1);
    const runId = JSON.parse(first.stdout.trim().split('\n')[0]!).runId as string;
    await writeTree(dir, { go: '' });
    const resumed = await neo(['flow', 'resume', runId]);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: later: step `fix` runs on backend `neo`, which cannot start here: providers.local.apiKey references ${NEO_TEST_KEY}, which is not set',
    );
    const shown = await neo(['flow', 'show', runId, '--json']);
    expect(JSON.parse(shown.stdout).record.status).toBe('failed');
  });
});
