import { describe, expect, it } from 'vitest';
import { detectCwd, fillDeep, fillTemplate, fragments } from '../../../engine/model-server/text.js';
import { sampleFromSchema } from '../../../engine/model-server/structured.js';

describe('fragments', () => {
  it('splits into pieces of the chunk size, the last one shorter', () => {
    expect(fragments('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });
  it('never cuts a surrogate pair', () => {
    expect(fragments('a😀b😀', 2)).toEqual(['a😀', 'b😀']);
  });
  it('yields nothing for empty text', () => {
    expect(fragments('', 8)).toEqual([]);
  });
});

describe('placeholders', () => {
  it('fills known names and leaves unknown ones visible', () => {
    expect(fillTemplate('{{cwd}}/a {{ nope }}', { cwd: '/r' })).toBe('/r/a {{ nope }}');
  });
  it('fills inside nested arguments but not keys', () => {
    expect(fillDeep({ '{{cwd}}': ['{{cwd}}/x', 1, { p: '{{cwd}}' }] }, { cwd: '/r' })).toEqual({
      '{{cwd}}': ['/r/x', 1, { p: '/r' }],
    });
  });
});

describe('detectCwd', () => {
  it('reads codex environment context', () => {
    expect(detectCwd(['', '<environment_context>\n  <cwd>/tmp/repo one</cwd>\n</environment_context>'])).toBe(
      '/tmp/repo one',
    );
  });
  it('reads a "Working directory:" line', () => {
    expect(detectCwd(['You are Claude.\nPrimary working directory: /work/repo\nIs a git repo: true'])).toBe(
      '/work/repo',
    );
    expect(detectCwd(['Working directory: /a/b.'])).toBe('/a/b');
  });
  it('reads droid\'s "% pwd" transcript', () => {
    expect(detectCwd(['<system-reminder>\n% pwd\n/tmp/dr/repo\n\n</system-reminder>'])).toBe('/tmp/dr/repo');
  });
  it("reads gemini's first workspace directory", () => {
    const context = '<session_context>\n- **Workspace Directories:**\n  - /tmp/gm/repo\n- **Directory Structure:**\n';
    expect(detectCwd([context])).toBe('/tmp/gm/repo');
  });
  it('returns undefined when nothing announces one', () => {
    expect(detectCwd(['hello'])).toBeUndefined();
  });
});

describe('sampleFromSchema', () => {
  it('builds an object that satisfies a title schema', () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        n: { type: 'integer', minimum: 2 },
        ok: { type: 'boolean' },
        kind: { enum: ['a', 'b'] },
        tags: { type: 'array' },
      },
      required: ['title'],
    };
    expect(sampleFromSchema(schema, 'T')).toEqual({ title: 'T', n: 2, ok: false, kind: 'a', tags: [] });
  });
});
