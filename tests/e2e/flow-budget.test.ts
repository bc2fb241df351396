import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId, readEvents } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A committed repo holding `files`, and its own NEO_HOME. */
async function repoWith(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-budget-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { repo, home };
}

async function runRecord(home: string, runId: string) {
  return JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8')) as {
    status: string;
    reason?: { code: string; message: string };
    ledger: { turns: number; tokens: number };
  };
}

describe('budgets are enforced inside a turn, and an overspend is said as such', () => {
  it("neo's own agent: the turn that crosses maxTokens is interrupted at the model call that crosses it", async () => {
    // Every request answers with another tool call and 2,300 tokens: without a check inside the
    // turn, the agent goes on for its whole maxTurns (about 21 calls, ~48,000 tokens).
    server = await startModelServer({
      script: {
        turns: [
          {
            times: 'always',
            tools: [{ name: 'read_file', arguments: { path: 'README.md' } }],
            usage: { input: 2000, output: 300 },
          },
        ],
      },
    });
    const { repo, home } = await repoWith({
      'spend.flow.yaml': [
        'name: spend',
        'defaults: { backend: neo, maxPosture: acceptEdits, budgets: { maxTokens: 5000 } }',
        'steps:',
        '  - id: read',
        '    brief: read the README again and again',
        '    requireChange: false',
        '',
      ].join('\n'),
    });
    await writeTree(home, {
      'neo.yaml': scriptedAgentConfig(server.url, '  maxRetries: 0\n'),
    });
    const result = await runNeo(['flow', 'run', 'spend.flow.yaml'], {
      cwd: repo,
      env: { NEO_HOME: home, NEO_TEST_KEY: 'sk-test-budget' },
    });
    expect(result.exitCode).toBe(4);
    const runId = await onlyRunId(home);
    const record = await runRecord(home, runId);
    expect(record.status).toBe('failed');
    expect(record.reason).toEqual({
      code: 'FLOW_BUDGET_EXCEEDED',
      message:
        'budget maxTokens crossed mid-turn (6900 tokens used of 5000); the turn was interrupted and the run stopped',
    });
    expect(record.ledger.tokens).toBe(6900);
    expect(result.stdout).toContain('reason: budget maxTokens crossed mid-turn (6900 tokens used of 5000)');
    const events = await readEvents(home, runId);
    expect(events.filter((e) => e.type === 'ledger.charged').map((e) => e.tokens)).toEqual([2300, 2300, 2300, 0]);
  });

  it('a backend that reports only at the end of the turn: the overspend is said as such', async () => {
    const { repo, home } = await repoWith({
      'spend.flow.yaml': [
        'name: spend',
        'defaults: { backend: script, maxPosture: acceptEdits, budgets: { maxTokens: 5000 } }',
        'steps:',
        '  - id: write',
        '    brief: write a note',
        '    script: spend.yaml',
        '',
      ].join('\n'),
      'spend.yaml': [
        'turns:',
        '  - actions:',
        '      - write: { path: note.txt, content: "a note\\n" }',
        '    cost: { inputTokens: 45000, outputTokens: 4259 }',
        '',
      ].join('\n'),
    });
    const result = await runNeo(['flow', 'run', 'spend.flow.yaml'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(4);
    const runId = await onlyRunId(home);
    const record = await runRecord(home, runId);
    const message =
      "budget maxTokens overspent (49259 tokens used of 5000): the backend reported the turn's spending only at its end, too late to stop it; the run stopped";
    expect(record.status).toBe('failed');
    expect(record.reason).toEqual({ code: 'FLOW_BUDGET_EXCEEDED', message });
    expect(result.stdout).toContain(`reason: ${message}`);
    expect(result.stdout).toMatch(/✗ spend failed in .* · 1 turn · 49259 tokens/);
  });
});
