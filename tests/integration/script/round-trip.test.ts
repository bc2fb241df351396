import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import type { Posture } from '../../../engine/definitions/index.js';
import type { AgentEvent, AgentSession } from '../../../engine/transports/index.js';
import { checkScriptText, renderScriptYaml, scriptFromEvents } from '../../../engine/transports/script/index.js';
import { startScript, type EventReader } from '../../helpers/script.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

const START_TREE = {
  'src/sum.js': 'let total = 0;\nreturn total + 1;\n',
  'README.md': '# demo\n',
  'old/name.txt': 'moving\n',
};

/** Every file under `root` with its content. */
async function snapshot(root: string, dir = root, out: Record<string, string> = {}): Promise<Record<string, string>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await snapshot(root, path, out);
    else out[relative(root, path)] = await readFile(path, 'utf8');
  }
  return out;
}

/**
 * Drives a session the way the registry would and records what it would store: the agent's
 * events plus `clarification` and `guidance` annotations. Clarifications are answered in order
 * from `answers`; after each turn the next guidance text is sent, until none is left.
 */
async function drive(
  session: AgentSession,
  reader: EventReader,
  answers: boolean[],
  guidance: string[],
): Promise<unknown[]> {
  const recorded: unknown[] = [];
  const queue = [...answers];
  const next = [...guidance];
  for (;;) {
    const event = await reader.next();
    if (event === undefined) return recorded;
    recorded.push(event);
    if (event.type === 'clarify') {
      const allow = queue.shift();
      if (allow === undefined) throw new Error(`unexpected clarification ${event.clarificationId}`);
      recorded.push({
        type: 'clarification',
        clarificationId: event.clarificationId,
        toolName: event.toolName,
        decision: { allow },
      });
      await session.answer(event.clarificationId, allow ? { allow } : { allow, reason: 'no' });
    }
    if (event.type === 'turn_complete' || event.type === 'error') {
      const text = next.shift();
      if (text === undefined) return recorded;
      recorded.push({ type: 'guidance', source: 'driver', text });
      await session.sendGuidance(text);
    }
    if (event.type === 'ended') return recorded;
  }
}

const agentOnly = (events: readonly unknown[]) =>
  (events as AgentEvent[])
    .filter((e) => !['clarification', 'guidance'].includes(e.type))
    .map((e) => (e.type === 'started' ? { type: 'started' } : e));

describe('record → script → replay gives the same file changes', () => {
  const original = {
    turns: [
      {
        cost: { usd: 0.02, inputTokens: 800, outputTokens: 90 },
        actions: [
          { say: 'Fixing sum.' },
          { edit: { path: 'src/sum.js', search: 'total + 1', replace: 'total' } },
          { write: { path: 'src/extra.js', content: 'export const extra = true;\n' } },
          { run: { command: 'printf "ran\\n" > ran.log' } },
          { write: { path: 'denied.txt', content: 'should not exist\n' } },
        ],
      },
      {
        when: { guidanceContains: 'tidy' },
        actions: [
          { rename: { from: 'old/name.txt', to: 'new/name.txt' } },
          {
            ask: {
              toolName: 'Cleanup',
              input: { what: 'README' },
              onAllow: [{ delete: { path: 'README.md' } }],
              onDeny: [{ say: 'kept the README' }],
            },
          },
          { run: { command: ['sh', '-c', 'exit 2'], expectExit: 2 } },
        ],
      },
      [{ say: 'done' }, { end: { ok: true } }],
    ],
  };

  const cases: Array<{ name: string; posture: Posture; answers: boolean[]; tree: Record<string, string | undefined> }> =
    [
      // default: the fourth question (the write of denied.txt) is denied; the Cleanup ask is allowed.
      {
        name: 'posture default, ask allowed',
        posture: 'default',
        answers: [true, true, true, false, true, true, true, true],
        tree: { 'README.md': undefined },
      },
      {
        name: 'posture default, ask denied',
        posture: 'default',
        answers: [true, true, true, false, true, false, true],
        tree: {},
      },
      {
        name: 'posture full',
        posture: 'full',
        answers: [],
        tree: { 'README.md': undefined, 'denied.txt': 'should not exist\n' },
      },
    ];
  for (const { name, posture, answers, tree } of cases) {
    test(name, async () => {
      // Record: play the hand-written script, as a real agent's session would be recorded.
      const first = await tempDir();
      await writeTree(first, START_TREE);
      const recording = await startScript({ cwd: first, posture, script: original });
      const events = await drive(recording.session, recording.reader, answers, ['please tidy up', 'finish']);
      await recording.session.stop();

      // Convert and check it is a valid script, as `neo script from-session` would print it.
      const converted = scriptFromEvents(events, { cwd: first });
      expect(converted.notes).toEqual([]);
      const text = renderScriptYaml(converted.script, {
        schema: 'script.schema.json',
        turnComments: converted.prompts,
      });
      const check = checkScriptText(text, '/replay.yaml');
      expect(check.diagnostics).toEqual([]);

      // Replay on a fresh copy of the starting tree with the same answers and guidance.
      const second = await tempDir();
      await writeTree(second, START_TREE);
      const replay = await startScript({ cwd: second, posture, script: text });
      const replayed = await drive(replay.session, replay.reader, answers, ['please tidy up', 'finish']);
      await replay.session.stop();

      expect(await snapshot(second)).toEqual(await snapshot(first));
      expect(agentOnly(replayed)).toEqual(agentOnly(events));
      const expectedTree: Record<string, string | undefined> = {
        'src/sum.js': 'let total = 0;\nreturn total;\n',
        'src/extra.js': 'export const extra = true;\n',
        'README.md': '# demo\n',
        'ran.log': 'ran\n',
        'new/name.txt': 'moving\n',
        ...tree,
      };
      expect(await snapshot(second)).toEqual(
        Object.fromEntries(Object.entries(expectedTree).filter(([, v]) => v !== undefined)),
      );
    });
  }

  test('a Claude Code style recording replays its file changes', async () => {
    const cwd = '/recorded/repo';
    const events = [
      { type: 'started', externalSessionId: 'abc', model: 'claude-sonnet-4-5' },
      {
        type: 'tool_use',
        id: 'u1',
        name: 'Edit',
        input: { file_path: `${cwd}/src/sum.js`, old_string: 'total + 1', new_string: 'total' },
      },
      {
        type: 'tool_use',
        id: 'u2',
        name: 'Write',
        input: { file_path: `${cwd}/docs/CHANGES.md`, content: '- fixed sum\n' },
      },
      { type: 'tool_use', id: 'u3', name: 'Bash', input: { command: 'mkdir -p build && echo ok > build/status' } },
      { type: 'turn_complete', numTurns: 1, costUsd: 0.01 },
    ];
    const converted = scriptFromEvents(events, { cwd });
    const dir = await tempDir();
    await writeTree(dir, START_TREE);
    const { session, reader } = await startScript({
      cwd: dir,
      posture: 'full',
      script: renderScriptYaml(converted.script, { schema: 's.json' }),
    });
    const turn = await reader.until('turn_complete');
    await session.stop();
    expect(turn.at(-1)).toEqual({ type: 'turn_complete', numTurns: 1, costUsd: 0.01 });
    expect(await snapshot(dir)).toEqual({
      ...START_TREE,
      'src/sum.js': 'let total = 0;\nreturn total;\n',
      'docs/CHANGES.md': '- fixed sum\n',
      'build/status': 'ok\n',
    });
  });
});
