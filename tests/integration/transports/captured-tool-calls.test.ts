import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { replay } from './replay.js';

type ToolUse = Extract<AgentEvent, { type: 'tool_use' }>;
type ToolResult = Extract<AgentEvent, { type: 'tool_result' }>;

/**
 * Each real CLI creating new.txt, editing README.md and running a command (recorded by
 * tests/clis/tool-shapes.cli-test.ts with NEO_CAPTURE=1), replayed: every edit's tool_use names
 * its files in `paths` (what the diff fallback outside git reads), whatever shape the CLI gave
 * them — Claude's `file_path`, codex's `changes`, OpenCode's input that arrives only with
 * `in_progress`, Copilot's patch text, droid's `file_path` — and every result keeps what the CLI
 * said, or says that it said nothing.
 */
async function run(cli: string, name: string, allow: boolean, pace = 0) {
  const { session, reader, cwd } = await replay(cli, name, { posture: allow ? 'acceptEdits' : 'default', pace });
  const events: AgentEvent[] = [];
  try {
    for (;;) {
      const event = await reader.next();
      if (event === undefined) break;
      events.push(event);
      if (event.type === 'clarify')
        await session.answer(event.clarificationId, { allow, reason: 'refused by the test' });
      if (event.type === 'turn_complete' || (event.type === 'error' && event.transient !== true)) break;
    }
  } finally {
    await session.stop();
  }
  const uses = events.filter((e): e is ToolUse => e.type === 'tool_use');
  const results = events.filter((e): e is ToolResult => e.type === 'tool_result');
  const inside = (use: ToolUse) => (use.paths ?? []).map((p) => relative(cwd, resolve(cwd, p)));
  return { events, uses, results, inside };
}

const EDIT_TOOLS: Record<string, string[]> = {
  claude: ['Write', 'Edit'],
  codex: ['fileChange'],
  opencode: ['edit'],
  copilot: ['edit'],
  droid: ['edit'],
  gemini: ['edit'],
};

describe('tool calls, replayed from the real CLIs', () => {
  for (const [cli, tools] of Object.entries(EDIT_TOOLS)) {
    it(`${cli}: the edits name new.txt and README.md, and no result is empty`, async () => {
      const { uses, results, inside, events } = await run(cli, 'edits', true);
      const edits = uses.filter((use) => tools.includes(use.name));
      expect([...new Set(edits.flatMap(inside))].sort(), JSON.stringify(events)).toEqual(['README.md', 'new.txt']);
      expect(results.length).toBeGreaterThanOrEqual(2);
      for (const result of results) expect(result.output).not.toBe('');
      // Every call is announced before its result, once.
      expect(new Set(uses.map((u) => u.id)).size).toBe(uses.length);
      for (const result of results) expect(uses.some((u) => u.id === result.id)).toBe(true);
    });
  }

  it('opencode: a call announced with an empty input is reported with the input that follows', async () => {
    const { uses } = await run('opencode', 'edits', true);
    expect(uses.map((u) => [u.name, Object.keys(u.input as object).sort()])).toEqual([
      ['edit', ['content', 'filePath']],
      ['edit', ['filePath', 'newString', 'oldString']],
      ['execute', ['command', 'cwd', 'description']],
    ]);
  });

  it("droid and gemini: an edit's result is the diff the CLI sent, old and new text (droid sends it with the call)", async () => {
    for (const cli of ['droid', 'gemini']) {
      const { results, events } = await run(cli, 'edits', true);
      expect(
        results.slice(0, 2).map((r) => r.output.replace(/\/.*\//, '/…/')),
        JSON.stringify(events),
      ).toEqual([
        'diff /…/new.txt\n+new',
        expect.stringMatching(/^diff \/…\/README\.md\n-(# )?scratch( repo)?\n\+(# )?edited( repo)?$/),
      ]);
    }
  });

  it('a command whose output the CLI does not send is recorded as such, not as the text of its ask', async () => {
    // Gemini describes the command in its ask and completes it with `content: []`; droid runs it
    // in a terminal of its own and completes it with nothing.
    const gemini = await run('gemini', 'edits', true);
    expect(gemini.results.at(-1)!.output).toBe('(gemini reported the call completed and sent no output)');
    const droid = await run('droid', 'edits', true);
    expect(droid.results.at(-1)!.output).toBe(
      '(droid reported the call completed and sent no output: it ran the call in a terminal of its own)',
    );
  });

  it('codex: a patch codex refuses itself (it does not verify) is a failed call, from the only place codex says so', async () => {
    // codex 0.171 tells only the model, and logs it on stderr; no item reaches the app-server wire.
    // Paced: stdout and stderr are two pipes, and only the captured gaps keep their order.
    const { uses, results, events } = await run('codex', 'broken', true, 0.5);
    const patch = uses.find((u) => u.name === 'apply_patch');
    expect(patch, JSON.stringify(events)).toBeDefined();
    expect(results.find((r) => r.id === patch!.id)).toEqual({
      type: 'tool_result',
      id: patch!.id,
      output: expect.stringMatching(
        /^apply_patch verification failed: Failed to read file to update \S*missing\.txt: No such file/,
      ),
      isError: true,
    });
    // Announced before what the agent did next.
    expect(events.findIndex((e) => e === patch)).toBeLessThan(events.findIndex((e) => e.type === 'text'));
  });

  it('a refused edit leaves a tool_use naming the file and a failed result saying so', async () => {
    const codex = await run('codex', 'refused', false);
    const patch = codex.uses.find((u) => u.name === 'fileChange')!;
    expect(codex.inside(patch)).toEqual(['refused.txt']);
    expect(codex.results.find((r) => r.id === patch.id)).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^declined: add \S*refused\.txt$/),
    });
    const droid = await run('droid', 'refused', false);
    const create = droid.uses.find((u) => u.name === 'edit')!;
    expect(droid.inside(create)).toEqual(['refused.txt']);
    expect(droid.results.find((r) => r.id === create.id)).toEqual({
      type: 'tool_result',
      id: create.id,
      output: '(droid reported the call failed and sent no output)',
      isError: true,
    });
  });
});
