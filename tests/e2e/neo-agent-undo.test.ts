/**
 * neo's own agent through the binary on the scripted model server: `neo session undo` restores
 * the files of the last turn byte for byte and refuses, changing nothing, after an outside edit;
 * the workflow checklist shows in `neo sessions show` and `neo session checklist`; `neo session
 * reset` clears the conversation; `neo session list` finds the sessions of this directory and
 * `neo session start --resume` continues one.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProject, sentText, type AgentProject } from './neo-agent-helpers.js';

let project: AgentProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const start = ['session', 'start', '--backend', 'neo', '--max-posture', 'acceptEdits'];
// Bytes a text round trip would change: CRLF, no final newline, a NUL-free binary-ish tail.
const ORIGINAL = 'line one\r\nline two\r\n\tindented — ü\r\nno newline at the end';

describe("neo's agent: undo, reset, checklist, list and continue", () => {
  it('undo restores the last turn byte for byte, and refuses after an outside edit', async () => {
    project = await agentProject(
      [
        {
          when: { user: 'first change' },
          tools: [
            { name: 'workflow', arguments: { action: 'add', items: ['edit notes', 'add new.txt'] } },
            { name: 'edit', arguments: { path: 'notes.txt', old_string: 'line two', new_string: 'LINE 2' } },
            { name: 'write_file', arguments: { path: 'new.txt', content: 'fresh\n' } },
            { name: 'workflow', arguments: { action: 'check', id: 1 } },
          ],
        },
        { when: { toolResult: '[x] 1. edit notes' }, text: 'changed two files' },
        {
          when: { user: 'second change' },
          tools: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'rewritten\n' } }],
        },
        { when: { toolResult: 'replaced notes.txt' }, text: 'rewrote notes' },
      ],
      { files: { 'notes.txt': ORIGINAL } },
    );
    const { repo } = project;
    const { sessionId } = await project.json<{ sessionId: string }>([...start, '--brief', 'first change']);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({
      kind: 'turn_complete',
      text: 'changed two files',
    });
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toContain('LINE 2');

    // The checklist, in the record and live.
    const shown = await project.neo(['sessions', 'show', sessionId]);
    expect(shown.stdout).toContain('checklist:');
    expect(shown.stdout).toContain('[x] 1. edit notes');
    expect(shown.stdout).toContain('[ ] 2. add new.txt');
    expect((await project.neo(['session', 'checklist', sessionId])).stdout).toBe(
      '[x] 1. edit notes\n[ ] 2. add new.txt',
    );

    const undone = await project.json<{ restored: string[]; turn: number }>(['session', 'undo', sessionId]);
    expect(undone).toMatchObject({ turn: 1 });
    expect(undone.restored.sort()).toEqual(['new.txt', 'notes.txt']);
    expect(readFileSync(join(repo, 'notes.txt')).equals(Buffer.from(ORIGINAL))).toBe(true);
    expect(existsSync(join(repo, 'new.txt'))).toBe(false);
    // Nothing left to undo.
    const again = await project.neo(['session', 'undo', sessionId]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('AGENT_UNDO_NOTHING');

    // A second turn, then a person edits the file: undo refuses and changes nothing.
    expect((await project.neo(['session', 'guide', sessionId, 'second change'])).exitCode).toBe(0);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({ text: 'rewrote notes' });
    writeFileSync(join(repo, 'notes.txt'), 'edited by hand\n');
    const refused = await project.neo(['session', 'undo', sessionId]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('AGENT_UNDO_CONFLICT');
    expect(refused.stderr).toContain('notes.txt changed since the agent wrote it');
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('edited by hand\n');
    const events = await project.json<{ events: Array<{ event: { type: string } }> }>([
      'sessions',
      'show',
      sessionId,
      '--events',
    ]);
    expect(events.events.filter((e) => e.event.type === 'undo')).toHaveLength(1);
    expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);
  });

  it('reset clears the conversation; list finds the sessions of this directory; --resume continues one', async () => {
    project = await agentProject([
      { when: { user: 'remember the word kiwi' }, text: 'noted' },
      { when: { user: 'after reset' }, text: 'fresh start' },
      { when: { user: 'carry on' }, text: 'continued' },
    ]);
    const { sessionId } = await project.json<{ sessionId: string }>([...start, '--brief', 'remember the word kiwi']);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({ text: 'noted' });
    expect((await project.neo(['session', 'reset', sessionId])).exitCode).toBe(0);
    expect((await project.neo(['session', 'guide', sessionId, 'after reset'])).exitCode).toBe(0);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({ text: 'fresh start' });
    const afterReset = project.server.requests.at(-1)!.body as { messages: unknown[] };
    expect(afterReset.messages).toHaveLength(1);
    expect(sentText(afterReset)).not.toContain('kiwi');
    expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);

    const listed = await project.json<{
      sessions: Array<{ sessionId: string; backend: string; resumeSessionId?: string; live: boolean }>;
    }>(['session', 'list', '--backend', 'neo']);
    expect(listed.sessions).toHaveLength(1);
    expect(listed.sessions[0]).toMatchObject({ sessionId, backend: 'neo', live: false, resumeSessionId: sessionId });
    // Another directory has none.
    expect((await project.json<{ sessions: unknown[] }>(['session', 'list', '--cwd', project.home])).sessions).toEqual(
      [],
    );

    const resumed = await project.json<{ sessionId: string }>([...start, '--resume', sessionId, '--brief', 'carry on']);
    expect(await project.json(['session', 'read', resumed.sessionId])).toMatchObject({ text: 'continued' });
    // The continued conversation is the one left after the reset: its turn, then the new brief.
    const sent = sentText(project.server.requests.at(-1)!.body);
    expect(sent).toContain('after reset');
    expect(sent).toContain('fresh start');
    expect(sent).not.toContain('kiwi');
    expect((await project.neo(['session', 'stop', resumed.sessionId])).exitCode).toBe(0);
  });
});
