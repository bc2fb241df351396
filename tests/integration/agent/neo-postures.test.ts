import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Posture } from '../../../engine/definitions/index.js';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { harness, types, type Harness } from '../../fixtures/agent/neo-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** One model reply that reads, writes and runs a command, then a closing text. */
const SCRIPT = {
  turns: [
    {
      tools: [
        { name: 'read_file', arguments: { path: 'README.md' } },
        { name: 'write_file', arguments: { path: 'new.txt', content: 'written\n' } },
        { name: 'exec', arguments: { command: 'echo ran > ran.txt' } },
      ],
    },
    { text: 'done' },
  ],
};

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

async function runWith(
  posture: Posture,
  answers: Record<string, { allow: boolean; reason?: string }>,
): Promise<{ events: AgentEvent[]; results: Array<{ output: string; isError: boolean }> }> {
  h = await harness(SCRIPT, { posture, files: { 'README.md': 'readme\n' } });
  const reader = await h.start();
  const events: AgentEvent[] = [];
  for (;;) {
    const seen = await reader.until((e) => e.type === 'clarify' || e.type === 'turn_complete');
    events.push(...seen);
    const last = seen.at(-1)!;
    if (last.type === 'turn_complete') break;
    if (last.type === 'clarify') await reader.session.answer(last.clarificationId, answers[last.toolName]!);
  }
  const results = events
    .filter((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result')
    .map((e) => ({ output: e.output, isError: e.isError }));
  return { events, results };
}

describe('postures on the neo backend', () => {
  it('plan: reads run, writes and commands are refused without asking', async () => {
    const { events, results } = await runWith('plan', {});
    expect(types(events).filter((t) => t.startsWith('clarify'))).toEqual([]);
    expect(results).toEqual([
      { output: '1\treadme', isError: false },
      { output: 'denied: posture plan forbids file edits (write_file on new.txt)', isError: true },
      { output: 'denied: posture plan forbids running commands (`echo ran > ran.txt`)', isError: true },
    ]);
    expect(await exists(join(h!.repo, 'new.txt'))).toBe(false);
    expect(await exists(join(h!.repo, 'ran.txt'))).toBe(false);
  });

  it('default: writes and commands ask; a deny carries its reason, an allow runs', async () => {
    const { events, results } = await runWith('default', {
      write_file: { allow: false, reason: 'not that file' },
      exec: { allow: true },
    });
    expect(types(events).filter((t) => t.startsWith('clarify'))).toEqual(['clarify:write_file', 'clarify:exec']);
    expect(events.find((e) => e.type === 'clarify')).toMatchObject({
      toolName: 'write_file',
      input: { path: 'new.txt', content: 'written\n' },
    });
    expect(results).toEqual([
      { output: '1\treadme', isError: false },
      { output: 'denied by the user: not that file', isError: true },
      { output: '(no output)', isError: false },
    ]);
    expect(await exists(join(h!.repo, 'new.txt'))).toBe(false);
    expect(await readFile(join(h!.repo, 'ran.txt'), 'utf8')).toBe('ran\n');
    // The answered asks are pinned in the transcript, so compaction keeps them.
    const saved = JSON.parse(
      await readFile(join(h!.home, 'code-sessions', 'cs_1', 'agent-transcript.json'), 'utf8'),
    ) as { messages: Array<{ content: Array<{ pinned?: string }> }> };
    const pins = saved.messages.flatMap((m) => m.content.flatMap((b) => (b.pinned !== undefined ? [b.pinned] : [])));
    expect(pins).toEqual([
      'Permission asked for write_file {"path":"new.txt","content":"written\\n"}: denied: not that file.',
      'Permission asked for exec {"command":"echo ran > ran.txt"}: allowed.',
    ]);
  });

  it('acceptEdits: writes run, commands ask', async () => {
    const { events, results } = await runWith('acceptEdits', { exec: { allow: false } });
    expect(types(events).filter((t) => t.startsWith('clarify'))).toEqual(['clarify:exec']);
    expect(results.map((r) => r.output)).toEqual(['1\treadme', 'created new.txt (8 bytes)', 'denied by the user']);
    expect(await readFile(join(h!.repo, 'new.txt'), 'utf8')).toBe('written\n');
    expect(await exists(join(h!.repo, 'ran.txt'))).toBe(false);
  });

  it('full: nothing asks', async () => {
    const { events, results } = await runWith('full', {});
    expect(types(events).filter((t) => t.startsWith('clarify'))).toEqual([]);
    expect(results.map((r) => r.isError)).toEqual([false, false, false]);
    expect(await exists(join(h!.repo, 'ran.txt'))).toBe(true);
  });

  it('a posture change applies to the next tool call', async () => {
    h = await harness(
      {
        turns: [
          { tools: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] },
          { text: 'blocked' },
          { tools: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] },
          { text: 'written' },
        ],
      },
      { posture: 'plan' },
    );
    const reader = await h.start();
    const first = await reader.until('turn_complete');
    expect(first.find((e) => e.type === 'tool_result')).toMatchObject({ isError: true });
    await reader.session.setPosture('acceptEdits');
    await reader.session.sendGuidance('you may write now');
    const second = await reader.until('turn_complete');
    expect(second.find((e) => e.type === 'tool_result')).toMatchObject({
      output: 'created a.txt (1 bytes)',
      isError: false,
    });
  });

  it('an interrupt withdraws a pending ask as a deny', async () => {
    h = await harness(
      { turns: [{ tools: [{ name: 'exec', arguments: { command: 'touch never.txt' } }] }, { text: 'after' }] },
      { posture: 'default' },
    );
    const reader = await h.start();
    const ask = (await reader.until('clarify')).at(-1) as Extract<AgentEvent, { type: 'clarify' }>;
    await reader.session.interrupt();
    const events = await reader.until('turn_complete');
    expect(events.at(-1)).toMatchObject({ type: 'turn_complete', interrupted: true });
    await expect(reader.session.answer(ask.clarificationId, { allow: true })).rejects.toMatchObject({
      code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
    });
    expect(await exists(join(h.repo, 'never.txt'))).toBe(false);
  });

  it('an ask an interrupt cancels is on record: a gate_decision by the interrupt, before the turn ends', async () => {
    h = await harness(
      { turns: [{ tools: [{ name: 'exec', arguments: { command: 'touch never.txt' } }] }, { text: 'after' }] },
      { posture: 'default' },
    );
    const reader = await h.start();
    const ask = (await reader.until('clarify')).at(-1) as Extract<AgentEvent, { type: 'clarify' }>;
    await reader.session.interrupt();
    const events = await reader.until('turn_complete');
    expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
      {
        type: 'gate_decision',
        clarificationId: ask.clarificationId,
        toolName: 'exec',
        ask: ask.ask,
        allow: false,
        reason: 'cancelled',
        posture: 'default',
        by: 'interrupt',
      },
    ]);
    expect(events.findIndex((e) => e.type === 'gate_decision')).toBeLessThan(events.length - 1);
  });

  it('an ask still open when the session stops is on record too', async () => {
    h = await harness(
      { turns: [{ tools: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'after' }] },
      { posture: 'default' },
    );
    const reader = await h.start();
    const ask = (await reader.until('clarify')).at(-1) as Extract<AgentEvent, { type: 'clarify' }>;
    await reader.session.stop();
    const rest = await reader.rest();
    expect(rest.filter((e) => e.type === 'gate_decision')).toEqual([
      expect.objectContaining({
        clarificationId: ask.clarificationId,
        allow: false,
        reason: 'cancelled',
        by: 'interrupt',
      }),
    ]);
    expect(await exists(join(h.repo, 'x.txt'))).toBe(false);
  });
});
