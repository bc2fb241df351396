/**
 * The ceiling on every real CLI, end to end through `neo flow run` (the built-in driver, a
 * worktree workspace) against `neo model serve`: an edit inside the workspace at posture default
 * is asked and allowed; an edit aimed at the user's checkout by absolute path stays out of it and
 * is recorded; a chained command under an allow rule does not run; a command outside the list
 * does not run. The denials come last in their steps, each step its own session: OpenCode, Copilot
 * and droid end a turn on a denial.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { PersistedSessionEvent } from '../../engine/session/index.js';
import { parseJsonl } from '../../engine/util/jsonl.js';
import { DROID_MODEL, GEMINI_MODEL, droidEnv, geminiEnv, opencodeEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { claudeEnv, codexEnv, copilotEnv } from './harness/envs.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox, type Sandbox } from './harness/sandbox.js';
import { defined } from '../../engine/util/defined.js';

const NEO = join(ROOT, 'dist', 'bin', 'neo.js');

type Call = { name: string; arguments: unknown };

/** How each CLI's model spells a file write and a shell command. */
interface Ceiling {
  cli: string;
  backend: string;
  model?: string;
  env: (box: Sandbox, url: string, bin: string) => NodeJS.ProcessEnv | Promise<NodeJS.ProcessEnv>;
  write: (path: string) => Call;
  /** The shell tool; without `escalate`, Codex runs it inside its read-only sandbox without asking. */
  shell: (command: string, escalate: boolean) => Call;
}

const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+written by the agent\n*** End Patch\n`;
const CEILINGS: Ceiling[] = [
  {
    cli: 'claude',
    backend: 'claude-code',
    model: 'claude-sonnet-4-5',
    env: claudeEnv,
    write: (path) => ({ name: 'Write', arguments: { file_path: path, content: 'written by the agent\n' } }),
    shell: (command) => ({ name: 'Bash', arguments: { command, description: 'Run it' } }),
  },
  {
    cli: 'codex',
    backend: 'codex',
    model: 'gpt-5.5',
    env: codexEnv,
    write: (path) => ({ name: 'apply_patch', arguments: patch(path) }),
    // Asked for only when it must leave the read-only sandbox; otherwise the sandbox holds it.
    shell: (cmd, escalate) => ({
      name: 'exec_command',
      arguments: escalate
        ? { cmd, sandbox_permissions: 'require_escalated', justification: 'Needs to write' }
        : { cmd },
    }),
  },
  {
    cli: 'opencode',
    backend: 'opencode',
    env: opencodeEnv,
    write: (path) => ({ name: 'write', arguments: { filePath: path, content: 'written by the agent\n' } }),
    shell: (command) => ({ name: 'bash', arguments: { command, description: 'Run it' } }),
  },
  {
    cli: 'copilot',
    backend: 'copilot',
    env: copilotEnv,
    write: (path) => ({ name: 'apply_patch', arguments: patch(path) }),
    shell: (command) => ({ name: 'bash', arguments: { command, description: 'Run it' } }),
  },
  {
    cli: 'droid',
    backend: 'droid',
    model: DROID_MODEL,
    env: droidEnv,
    write: (path) => ({ name: 'Create', arguments: { file_path: path, content: 'written by the agent\n' } }),
    shell: (command) => ({
      name: 'Execute',
      arguments: { command, riskLevelReason: 'It writes a file.', riskLevel: 'medium' },
    }),
  },
  {
    cli: 'gemini',
    backend: 'gemini',
    model: GEMINI_MODEL,
    env: geminiEnv,
    write: (path) => ({ name: 'write_file', arguments: { file_path: path, content: 'written by the agent\n' } }),
    shell: (command) => ({ name: 'run_shell_command', arguments: { command, description: 'Run it' } }),
  },
];

const STEPS = {
  inside: 'ceiling: write inside the workspace, then a chained command',
  escape: "ceiling: write into the user's checkout",
  unlisted: 'ceiling: a command outside the list',
};

/**
 * The model's side of the three steps: one or two tool calls each, then a closing text whatever
 * the answers (a CLI that ends its turn on a denial never asks for it).
 */
function modelScript(c: Ceiling): unknown {
  const write = c.write('{{cwd}}/inside.txt');
  const chained = c.shell('echo ok; touch pwned.txt', true);
  const escape = c.write('{{checkout}}/escape.txt');
  const unlisted = c.shell('touch unlisted.txt', false);
  return {
    description: `${c.backend}: the ceiling conformance flow`,
    models: ['gpt-5.5'],
    aux: { text: 'Scripted title' },
    turns: [
      { when: { user: STEPS.inside }, text: 'Writing.', tools: [write] },
      { when: { user: STEPS.inside, toolResult: { tool: write.name } }, text: 'Now a command.', tools: [chained] },
      { when: { user: STEPS.inside, toolResult: { tool: chained.name } }, text: 'Step done.' },
      { when: { user: STEPS.escape }, text: 'Writing.', tools: [escape] },
      { when: { user: STEPS.escape, toolResult: { tool: escape.name } }, text: 'Step done.' },
      { when: { user: STEPS.unlisted }, text: 'Running.', tools: [unlisted] },
      { when: { user: STEPS.unlisted, toolResult: { tool: unlisted.name } }, text: 'Step done.' },
    ],
  };
}

function flow(c: Ceiling): string {
  return [
    'name: ceiling',
    'workspace: { isolation: worktree }',
    'defaults:',
    `  backend: ${c.backend}`,
    ...(c.model === undefined ? [] : [`  model: ${c.model}`]),
    '  maxPosture: acceptEdits',
    '  maxRounds: 2',
    '  idleTimeout: 2m',
    'steps:',
    `  - { id: inside, brief: "${STEPS.inside}", posture: default, allowCommands: ["echo ok*"] }`,
    `  - { id: escape, needs: [inside], brief: "${STEPS.escape}", posture: acceptEdits, requireChange: false }`,
    `  - { id: unlisted, needs: [escape], brief: "${STEPS.unlisted}", posture: acceptEdits, requireChange: false }`,
    '',
  ].join('\n');
}

/** Every clarification the run's sessions recorded, in order, with who answered. */
function clarifications(
  neoHome: string,
): Array<{ allow: boolean; by?: string; kind?: string; command?: string; paths?: string[] }> {
  const dir = join(neoHome, 'code-sessions');
  const out: Array<{ allow: boolean; by?: string; kind?: string; command?: string; paths?: string[] }> = [];
  const sessions = existsSync(dir) ? readdirSync(dir).filter((id) => existsSync(join(dir, id, 'events.jsonl'))) : [];
  const lines = sessions
    .flatMap((id) => parseJsonl<PersistedSessionEvent>(readFileSync(join(dir, id, 'events.jsonl'), 'utf8')).records)
    .sort((a, b) => a.at.localeCompare(b.at));
  for (const { event } of lines)
    if (event.type === 'clarification')
      out.push({
        allow: event.decision.allow,
        ...defined({ by: event.by }),
        ...(event.ask === undefined ? {} : { kind: event.ask.kind, paths: event.ask.paths }),
        ...defined({ command: event.ask?.command }),
      });
  return out;
}

for (const c of CEILINGS) {
  describeCli(
    c.cli,
    `the ceiling through neo flow run (${c.backend})`,
    (cli) => {
      it('an edit inside is asked and allowed; an edit into the checkout, a chained command and an unlisted one do not happen', async () => {
        const box = await sandbox();
        const scriptFile = join(box.root, 'model.json');
        await writeFile(scriptFile, JSON.stringify(modelScript(c)));
        const model = await serveModel(scriptFile, box.root, { checkout: box.repo });
        await writeFile(join(box.repo, 'ceiling.flow.yaml'), flow(c));
        await execa('git', ['add', '-A'], { cwd: box.repo });
        await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'plan'], {
          cwd: box.repo,
        });
        const env = await c.env(box, model.url, cli.bin);
        const run = await execa(process.execPath, [NEO, 'flow', 'run', 'ceiling.flow.yaml', '--json'], {
          cwd: box.repo,
          env,
          extendEnv: false,
          reject: false,
          timeout: 480_000,
        });
        await model.stop();
        const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
          status: string;
          runId: string;
          steps: Array<{ id: string; status: string }>;
        };
        expect(
          summary.steps.map((s) => [s.id, s.status]),
          run.stderr,
        ).toEqual([
          ['inside', 'succeeded'],
          ['escape', 'succeeded'],
          ['unlisted', 'succeeded'],
        ]);
        // The user's checkout is untouched; the run's branch holds the one allowed edit and nothing else.
        expect(existsSync(join(box.repo, 'escape.txt'))).toBe(false);
        expect((await execa('git', ['status', '--porcelain'], { cwd: box.repo })).stdout).toBe('');
        const branch = (
          await execa('git', ['branch', '--list', 'neo/*', '--format=%(refname:short)'], { cwd: box.repo })
        ).stdout.trim();
        const files = (await execa('git', ['ls-tree', '--name-only', branch], { cwd: box.repo })).stdout.split('\n');
        expect(files.sort()).toEqual(['README.md', 'ceiling.flow.yaml', 'inside.txt']);
        const asked = clarifications(env.NEO_HOME!);
        // The edit inside: asked (posture default) and allowed by the driver.
        expect(asked[0]).toMatchObject({ allow: true, kind: 'edit' });
        expect(asked[0]!.by).not.toBe('posture');
        // The edit into the checkout: denied by the posture gate and on record, unless the CLI refused
        // it itself without asking (Gemini refuses any path outside its workspace).
        const escape = asked.filter((a) => a.paths?.some((p) => p.endsWith('/escape.txt')));
        if (c.backend === 'gemini') expect(escape).toEqual([]);
        else expect(escape).toEqual([expect.objectContaining({ allow: false, by: 'posture', kind: 'edit' })]);
        // The chained command under `echo ok*`: asked and denied.
        expect(asked.filter((a) => a.command?.includes('touch pwned.txt'))).toEqual([
          expect.objectContaining({ allow: false, kind: 'execute' }),
        ]);
        // The unlisted command: denied, or (Codex, advisory there) run inside the read-only sandbox, failing.
        const unlisted = asked.filter((a) => a.command?.includes('touch unlisted.txt'));
        expect(unlisted).toEqual(
          c.backend === 'codex' ? [] : [expect.objectContaining({ allow: false, kind: 'execute' })],
        );
        expect(summary.status).toBe('succeeded');
        expect(processesIn(box.repo)).toEqual([]);
      }, 600_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}
