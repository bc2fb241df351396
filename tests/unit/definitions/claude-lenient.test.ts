import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefinitionFile, personaView } from '../../../engine/definitions/index.js';

const file = fileURLToPath(new URL('../../fixtures/claude-lenient/generator-style.md', import.meta.url));

describe("Claude Code's generated agent files", () => {
  it('read an unquoted description holding `: ` as text, with a warning pointing at the key', async () => {
    const load = await loadDefinitionFile(file, { kind: 'persona', layer: 'project', trusted: false });
    expect(load.diagnostics.map((d) => [d.code, d.severity, d.span?.start.line, d.span?.start.column])).toEqual([
      ['DEF_FRONTMATTER_LENIENT', 'warning', 3, 1],
    ]);
    const view = personaView(load.definition as never);
    expect(view.id).toBe('code-reviewer-pro');
    expect(view.description).toBe(
      'Use this agent when you need a thorough review of recently written code. Examples: <example>Context: The user just wrote a function. user: "I\'ve written a sort, can you check it?" assistant: "I\'ll use the code-reviewer-pro agent to review it."</example>',
    );
    expect(view.knobs.allowedTools).toEqual(['Read', 'Grep', 'Glob']);
    expect(view.model).toBe('standard');
  });
});
