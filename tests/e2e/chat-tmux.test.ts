/**
 * `neo chat` in a real terminal (tmux), against the scripted model server: a turn with a tool
 * call whose ask is answered in place, the ceiling holding, a steer joining a running turn, an
 * interrupt mid-turn, a clean exit, and a resume in which the model sees the earlier turns.
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelScript, type ModelServer } from '../../engine/model-server/index.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

const SCRIPT = {
  turns: [
    {
      when: { user: 'please run echo' },
      text: 'I will run a command.',
      tools: [{ name: 'exec', arguments: { command: 'echo chat-tool-ran' } }],
    },
    { when: { toolResult: 'chat-tool-ran' }, text: 'The command printed chat-tool-ran.' },
    {
      when: { user: 'write a note' },
      text: 'Writing it.',
      tools: [
        { name: 'workflow', arguments: { action: 'add', text: 'write the chat note' } },
        { name: 'write_file', arguments: { path: 'note.txt', content: 'a chat note\n' } },
      ],
    },
    { when: { toolResult: 'note.txt' }, text: 'Wrote the note.' },
    {
      when: { user: 'slow task' },
      delay: '2s',
      text: 'Reading the README first.',
      tools: [{ name: 'read_file', arguments: { path: 'README.md' } }],
    },
    // The call after the tool ran: the steer has joined the turn by then (asserted on its body).
    { when: { toolResult: 'hello from the readme' }, text: 'Steered, as asked.' },
    { when: { user: 'stall please' }, text: 'Starting the long job.', stall: true },
    { when: { user: 'do you remember' }, text: 'You asked me to run echo earlier.' },
  ],
};

let server: ModelServer | undefined;
let tmux: Tmux | undefined;
afterEach(async () => {
  await tmux?.close();
  tmux = undefined;
  await server?.close();
  server = undefined;
});

const hasTmux = (await execa('tmux', ['-V'], { reject: false })).exitCode === 0;

describe.skipIf(!hasTmux)('neo chat in a terminal', () => {
  it('a turn with a tool call and its ask, the ceiling, a steer, an interrupt, exit, then --resume', async () => {
    const { repo, home, env, server } = await setup(SCRIPT);
    tmux = new Tmux();
    const t = tmux;

    const chat = await t.start([process.execPath, NEO_BIN, 'chat'], { cwd: repo, env });
    await t.waitFor(chat, /Ctrl-C at the prompt exits/);

    // A turn with a tool call: the ask is answered in place, then one receipt line with the outcome.
    await t.type(chat, 'please run echo');
    let screen = await t.waitFor(chat, /allow\? $/m);
    expect(screen).toMatch(/\? exec wants to run `echo chat-tool-ran`/);
    // The ceiling (acceptEdits) does not allow commands, so "always" is not offered.
    expect(screen).toMatch(/always: not within the ceiling/);
    await t.type(chat, 'y');
    screen = await t.waitFor(chat, /The command printed chat-tool-ran\.\n> $/m);
    expect(screen).toMatch(/^✓ exec echo chat-tool-ran — chat-tool-ran$/m);
    const sessionId = /^session (cs_\S+) · neo · posture acceptEdits \(ceiling acceptEdits\)$/m.exec(screen)?.[1];
    expect(sessionId).toBeDefined();

    // No way above the ceiling from the chat.
    await t.type(chat, '/posture full');
    await t.waitFor(chat, /POSTURE_CEILING_EXCEEDED/);
    // The agent's own features from the chat: its checklist, and /undo reverting its last turn's edits.
    await t.type(chat, 'write a note');
    await t.waitFor(chat, /Wrote the note\.\n.*1 added.*\n> $/m);
    expect(readFileSync(join(repo, 'note.txt'), 'utf8')).toBe('a chat note\n');
    await t.type(chat, '/checklist');
    await t.waitFor(chat, /write the chat note/);
    await t.type(chat, '/undo');
    await t.waitFor(chat, /note\.txt/);
    expect(existsSync(join(repo, 'note.txt'))).toBe(false);

    // Typing while a turn runs steers it: the steer joins the turn at its next model call.
    await t.type(chat, 'slow task');
    await t.type(chat, 'mention the steer');
    await t.waitFor(chat, /\(steering the running turn\)/);
    // The turn has ended when the prompt is back (a line typed before that would steer it).
    screen = await t.waitFor(chat, /Steered, as asked\.\n> $/m);
    expect(screen).toMatch(/^✓ read_file README\.md — 1\s+hello from the readme$/m);
    const steered = server.requests.find((r) => JSON.stringify(r.body).includes('hello from the readme'));
    expect(JSON.stringify(steered?.body)).toContain('mention the steer');

    // Ctrl-C interrupts the running turn; the chat stays.
    await t.type(chat, 'stall please');
    await waitForRequest(server, 'stall please');
    await t.keys(chat, 'C-c');
    await t.waitFor(chat, /\(interrupted\)\n> $/m);

    // Ctrl-C at the prompt exits cleanly, the session stopped and saved.
    await t.keys(chat, 'C-c');
    screen = await t.waitFor(chat, /\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    expect(screen).toContain(`session saved · resume with: neo chat --resume ${sessionId}`);
    const listed = JSON.parse(
      (await runNeo(['sessions', 'list', '--json'], { env: { NEO_HOME: home } })).stdout,
    ) as Array<{
      sessionId: string;
      status: string;
    }>;
    expect(listed.map((s) => [s.sessionId, s.status])).toEqual([[sessionId, 'ended']]);

    // --resume continues the conversation: the model sees the earlier turns.
    const resumed = await t.start([process.execPath, NEO_BIN, 'chat', '--resume', sessionId!.slice(0, 12)], {
      cwd: repo,
      env,
    });
    await t.waitFor(resumed, new RegExp(`continuing session ${sessionId}`));
    await t.type(resumed, 'do you remember');
    screen = await t.waitFor(resumed, /You asked me to run echo earlier\.\n> $/m);
    const request = server.requests.find((r) => JSON.stringify(r.body).includes('do you remember'));
    const body = JSON.stringify(request?.body);
    for (const earlier of ['please run echo', 'chat-tool-ran', 'mention the steer', 'Steered, as asked.'])
      expect(body).toContain(earlier);
    await t.keys(resumed, 'C-c');
    screen = await t.waitFor(resumed, /\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    const second = /resume with: neo chat --resume (cs_\S+)/.exec(screen)?.[1];
    expect(second).toBeDefined();
    expect(second).not.toBe(sessionId);
    const after = JSON.parse(
      (await runNeo(['sessions', 'list', '--json'], { env: { NEO_HOME: home } })).stdout,
    ) as Array<{
      status: string;
    }>;
    expect(after.map((s) => s.status)).toEqual(['ended', 'ended']);
  }, 90_000);

  it('"always" raises the posture to what the ask needs, within the ceiling; Ctrl-D at the prompt exits', async () => {
    const { repo, env } = await setup(
      {
        turns: [
          {
            when: { user: 'two commands' },
            text: 'First.',
            tools: [{ name: 'exec', arguments: { command: 'echo first-cmd' } }],
          },
          {
            when: { toolResult: 'first-cmd' },
            text: 'Second.',
            tools: [{ name: 'exec', arguments: { command: 'echo second-cmd' } }],
          },
          { when: { toolResult: 'second-cmd' }, text: 'Both ran.' },
        ],
      },
      'defaults:\n  maxPosture: full\n',
    );
    tmux = new Tmux();
    const chat = await tmux.start([process.execPath, NEO_BIN, 'chat', '--posture', 'default'], { cwd: repo, env });
    await tmux.waitFor(chat, /Ctrl-C at the prompt exits/);
    await tmux.type(chat, 'two commands');
    let screen = await tmux.waitFor(chat, /allow\? $/m);
    expect(screen).toMatch(/a: always \(posture full\)/);
    await tmux.type(chat, 'a');
    screen = await tmux.waitFor(chat, /Both ran\.\n> $/m);
    // One ask only: the second command ran under the raised posture.
    expect(screen.match(/wants to run/g)).toHaveLength(1);
    expect(screen).toMatch(/^✓ exec echo second-cmd — second-cmd$/m);
    await tmux.type(chat, '/posture');
    await tmux.waitFor(chat, /^posture full \(ceiling full\)$/m);
    await tmux.keys(chat, 'C-d');
    screen = await tmux.waitFor(chat, /\[exit \d+\]/);
    expect(screen).toMatch(/resume with: neo chat --resume cs_\S+\n\[exit 0\]/);
  }, 60_000);
});

describe('neo chat with piped input', () => {
  it('prints no prompt and no colour, denies asks no one can answer, and exits when the turn ends', async () => {
    const { repo, env } = await setup(SCRIPT);
    const { NO_COLOR: _none, ...coloured } = env;
    const result = await execa(process.execPath, [NEO_BIN, 'chat'], {
      cwd: repo,
      env: { ...coloured, FORCE_COLOR: '0' },
      input: 'please run echo\n',
      reject: false,
      timeout: 30_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout).not.toMatch(/^> /m);
    expect(result.stdout).toMatch(
      /^✗ exec echo chat-tool-ran — denied by the user: no one at the terminal to answer$/m,
    );
    expect(result.stdout).toMatch(/resume with: neo chat --resume cs_/);
  }, 60_000);
});

async function setup(script: object, config = '') {
  server = await startModelServer({ script: script as ModelScript });
  const root = await tempDir('neo-e2e-chat-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  watchFolder(home);
  await writeTree(repo, { 'README.md': 'hello from the readme\n' });
  await writeTree(home, {
    'neo.yaml': scriptedAgentConfig(server.url, config),
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const env = { NEO_HOME: home, NEO_TEST_KEY: 'sk-test', NO_COLOR: '1', TERM: 'xterm' };
  return { repo, home, env, server };
}

/** Waits until the model server has a request whose body contains `text`. */
async function waitForRequest(server: ModelServer, text: string): Promise<void> {
  await server.waitForRequest((r) => JSON.stringify(r.body).includes(text));
}
