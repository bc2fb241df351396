/**
 * neo's own agent delegates through its `task` tool, through the binary on the scripted model
 * server: two children run in parallel under a token budget the second crosses (it is stopped
 * before its next model call and the parent reads why, the first child's answer beside it; the
 * children's tokens reach the session's usage once); and an inspect child asked to write cannot,
 * because write_file is not in its registry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProject, offeredTools, sentText, type AgentProject } from './neo-agent-helpers.js';

let project: AgentProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const start = ['session', 'start', '--backend', 'neo', '--max-posture', 'acceptEdits'];

describe("neo's agent: subagents", () => {
  it('two children in parallel; the second crosses the token budget, is stopped, and the parent gets the reason', async () => {
    project = await agentProject(
      [
        {
          when: { user: 'investigate', toolOffered: 'task' },
          tools: [
            {
              name: 'task',
              arguments: {
                tasks: [
                  { prompt: 'first: say what a.txt holds', kind: 'inspect' },
                  { prompt: 'second: read b.txt', kind: 'inspect' },
                ],
              },
            },
          ],
        },
        { when: { user: 'first:' }, text: 'a.txt holds alpha', usage: { input: 100, output: 10 } },
        {
          when: { user: 'second:' },
          delay: '400ms',
          tools: [{ name: 'read_file', arguments: { path: 'b.txt' } }],
          usage: { input: 5000, output: 10 },
        },
        { when: { toolResult: 'beta' }, text: 'b.txt holds beta' },
        { when: { toolResult: 'token budget', toolOffered: 'task' }, text: 'the second child was stopped' },
      ],
      { files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' }, agentYaml: 'subagents: { maxTokens: 1000 }' },
    );
    const { sessionId } = await project.json<{ sessionId: string }>([...start, '--brief', 'investigate both files']);
    const turn = await project.json<{ kind: string; text: string }>(['session', 'read', sessionId]);
    expect(turn).toMatchObject({ kind: 'turn_complete', text: 'the second child was stopped' });

    const requests = project.server.requests.filter((r) => r.path.endsWith('/messages'));
    const last = sentText(requests.at(-1)!.body);
    expect(last).toContain('## task 1 (inspect): done');
    expect(last).toContain('a.txt holds alpha');
    expect(last).toMatch(
      /## task 2 \(inspect\): stopped — token budget: the children used 5120 tokens, over agent\.subagents\.maxTokens \(1000\)/,
    );
    // Stopped before its next call: no request ever carried b.txt's content.
    expect(requests.some((r) => sentText(r.body).includes('beta'))).toBe(false);
    // Each child had its own transcript: a child's request holds its prompt and nothing of the parent's.
    const child = requests.find((r) => sentText(r.body).includes('first:'))!;
    expect(sentText(child.body)).not.toContain('investigate both files');
    expect(offeredTools(child.body).sort()).toEqual(['glob', 'grep', 'read_file']);

    // The children's tokens join the session once: one usage event of 5120 (100+10 + 5000+10), none of theirs alone.
    const { events } = await project.json<{
      events: Array<{ event: { type: string; usage?: { inputTokens?: number; outputTokens?: number } } }>;
    }>(['sessions', 'show', sessionId, '--events']);
    const usages = events.filter((e) => e.event.type === 'usage').map((e) => e.event.usage!);
    const totals = usages.map((u) => (u.inputTokens ?? 0) + (u.outputTokens ?? 0));
    expect(totals.filter((t) => t === 5120)).toHaveLength(1);
    expect(totals).not.toContain(110);
    expect(totals).not.toContain(5010);
    const transcript = JSON.parse(
      readFileSync(join(project.home, 'code-sessions', sessionId, 'agent-transcript.json'), 'utf8'),
    ) as {
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(transcript.usage.inputTokens + transcript.usage.outputTokens).toBe(totals.reduce((a, b) => a + b, 0));
    expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);
  });

  it('an inspect child asked to write is refused by construction: write_file is not in its registry', async () => {
    project = await agentProject([
      {
        when: { user: 'delegate', toolOffered: 'task' },
        tools: [{ name: 'task', arguments: { tasks: [{ prompt: 'third: create c.txt', kind: 'inspect' }] } }],
      },
      { when: { user: 'third:' }, tools: [{ name: 'write_file', arguments: { path: 'c.txt', content: 'x\n' } }] },
      { when: { toolResult: { contains: 'unknown tool "write_file"', isError: true } }, text: 'I cannot write files' },
      { when: { toolResult: 'I cannot write files', toolOffered: 'task' }, text: 'the inspector could not write' },
    ]);
    // Even at the widest posture the parent could have.
    const { sessionId } = await project.json<{ sessionId: string }>([
      'session',
      'start',
      '--backend',
      'neo',
      '--max-posture',
      'full',
      '--brief',
      'delegate the file creation',
    ]);
    const turn = await project.json<{ kind: string; text: string }>(['session', 'read', sessionId]);
    expect(turn).toMatchObject({ kind: 'turn_complete', text: 'the inspector could not write' });
    expect(existsSync(join(project.repo, 'c.txt'))).toBe(false);
    const childRequests = project.server.requests.filter(
      (r) => sentText(r.body).includes('third:') && !offeredTools(r.body).includes('task'),
    );
    expect(childRequests.length).toBe(2);
    for (const r of childRequests) expect(offeredTools(r.body).sort()).toEqual(['glob', 'grep', 'read_file']);
    expect(sentText(childRequests[1]!.body)).toContain('available: read_file, grep, glob');
    expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);
  });
});
