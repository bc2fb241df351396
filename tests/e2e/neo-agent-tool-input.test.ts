/**
 * A tool call whose arguments miss a required field is told so, by name, before the posture
 * gate judges it: a model (or a hand-written model script) that called `edit` with Claude
 * Code's `file_path` was told "neo cannot tell which files edit changes", which names neither
 * the field nor the fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProject, type AgentProject } from './neo-agent-helpers.js';

let project: AgentProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe("neo's agent: a tool call missing a required argument", () => {
  it('is an input error naming the missing field and the ones given, and changes nothing', async () => {
    project = await agentProject(
      [
        {
          tools: [{ name: 'edit', arguments: { file_path: 'notes.txt', old_string: 'a', new_string: 'b' } }],
        },
        {
          when: {
            toolResult:
              'invalid input for edit: "path" is required (given: file_path, old_string, new_string); its arguments: path, old_string, new_string, replace_all',
          },
          text: 'told which field',
        },
      ],
      { files: { 'notes.txt': 'a\n' } },
    );
    const start = ['session', 'start', '--backend', 'neo', '--max-posture', 'acceptEdits', '--brief', 'edit it'];
    const { sessionId } = await project.json<{ sessionId: string }>(start);
    expect(await project.json(['session', 'read', sessionId])).toMatchObject({
      kind: 'turn_complete',
      text: 'told which field',
    });
    expect(readFileSync(join(project.repo, 'notes.txt'), 'utf8')).toBe('a\n');
    await project.neo(['session', 'stop', sessionId]);
  });
});
