/**
 * The context pruner through the binary on the scripted model server: a 40-call session that
 * reads a 2 KB file per call (and restores one parked result near the end) stays under a context
 * ceiling with the pruner on; the same session with `pruner: { enabled: false }` crosses it; both
 * end with the same answer. The context of a call is the input tokens the server counted for it
 * (a quarter of the request's characters).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentProject, sentText, type AgentProject } from './neo-agent-helpers.js';

const projects: AgentProject[] = [];
afterEach(async () => {
  while (projects.length > 0) await projects.pop()!.close();
});

const FILES = 40;
const CEILING = 10_000;

const files = Object.fromEntries(
  Array.from({ length: FILES }, (_, i) => [
    `f${i + 1}.txt`,
    `file ${i + 1} marker-${i + 1}\n${Array.from({ length: 40 }, (_, l) => `line ${l} of file ${i + 1} ${'.'.repeat(30)}`).join('\n')}\n`,
  ]),
);

const turns = [
  ...Array.from({ length: FILES - 1 }, (_, i) => ({
    tools: [{ id: `read_${i + 1}`, name: 'read_file', arguments: { path: `f${i + 1}.txt` } }],
  })),
  { tools: [{ id: 'restore_1', name: 'restore_context', arguments: { id: 'read_1' } }] },
  { text: 'read 39 files; file 1 starts with marker-1' },
];

async function run(prune: boolean): Promise<{ peak: number; text: string; project: AgentProject }> {
  const project = await agentProject(turns, { files, agentYaml: prune ? '' : 'pruner: { enabled: false }' });
  projects.push(project);
  const { sessionId } = await project.json<{ sessionId: string }>([
    'session',
    'start',
    '--backend',
    'neo',
    '--max-posture',
    'plan',
    '--brief',
    'read every file',
  ]);
  const turn = await project.json<{ kind: string; text: string; numTurns: number }>(['session', 'read', sessionId]);
  expect(turn).toMatchObject({ kind: 'turn_complete', numTurns: FILES + 1 });
  const { events } = await project.json<{
    events: Array<{ event: { type: string; usage?: { inputTokens?: number } } }>;
  }>(['sessions', 'show', sessionId, '--events']);
  const inputs = events.filter((e) => e.event.type === 'usage').map((e) => e.event.usage?.inputTokens ?? 0);
  expect(inputs).toHaveLength(FILES + 1);
  expect((await project.neo(['session', 'stop', sessionId])).exitCode).toBe(0);
  return { peak: Math.max(...inputs), text: turn.text, project };
}

describe("neo's agent: the context pruner", () => {
  it('keeps a 40-call session under a context ceiling the unpruned session crosses, with the same answer', async () => {
    const pruned = await run(true);
    const unpruned = await run(false);
    expect(pruned.peak).toBeLessThan(CEILING);
    expect(unpruned.peak).toBeGreaterThan(CEILING);
    expect(pruned.text).toBe(unpruned.text);
    // A parked result names how to get it back, and restore_context brings it back.
    const requests = pruned.project.server.requests;
    expect(sentText(requests[20]!.body)).toContain('call restore_context with {\\"id\\":\\"read_1\\"}');
    const afterRestore = requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(afterRestore.messages.at(-1)!.content)).toContain('marker-1');
  });
});
