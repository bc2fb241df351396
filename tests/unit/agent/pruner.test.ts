import { describe, expect, it } from 'vitest';
import { ContextPruner, restoreContextTool, type Message } from '../../../engine/agent/index.js';

function reads(paths: string[]): Message[] {
  const out: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  paths.forEach((path, i) => {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path } }] });
    out.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: `t${i}`,
          name: 'read_file',
          content: `${path}\n${'x'.repeat(500)}`,
          isError: false,
        },
      ],
    });
  });
  return out;
}

const resultOf = (messages: readonly Message[], i: number) =>
  (messages[2 + 2 * i]!.content[0] as { content: string }).content;

describe('the context pruner', () => {
  it('parks all but the most recent results, leaves the transcript alone, and restores on request', async () => {
    const messages = reads(['a', 'b', 'c', 'd']);
    const before = JSON.stringify(messages);
    const pruner = new ContextPruner({ keepRecent: 2, minChars: 100 });
    const view = pruner.view(messages);
    expect(resultOf(view, 0)).toMatch(/^\[parked: this read_file result \(\d+ chars\).*"id":"t0"/);
    expect(resultOf(view, 1)).toMatch(/^\[parked/);
    expect(resultOf(view, 2)).toContain('xxx');
    expect(resultOf(view, 3)).toContain('xxx');
    expect(JSON.stringify(messages)).toBe(before);
    const restored = await restoreContextTool(pruner).run({ id: 't0' }, { signal: new AbortController().signal });
    expect(restored).toEqual({ output: resultOf(messages, 0), isError: false });
  });

  it('parks a read a later read of the same file superseded, and never a short result', () => {
    const pruner = new ContextPruner({ keepRecent: 10, minChars: 100 });
    const view = pruner.view(reads(['a', 'b', 'a']));
    expect(resultOf(view, 0)).toMatch(/^\[parked/);
    expect(resultOf(view, 1)).toContain('xxx');
    expect(pruner.view(reads(['a', 'b']))).toEqual(reads(['a', 'b']));
    expect(new ContextPruner({ keepRecent: 1, minChars: 10_000 }).view(reads(['a', 'b', 'c']))).toEqual(
      reads(['a', 'b', 'c']),
    );
  });
});
