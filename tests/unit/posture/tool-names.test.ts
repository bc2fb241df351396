import { describe, expect, it } from 'vitest';
import { classifyAcpKind, classifyToolName } from '../../../engine/posture/index.js';

describe('tool names', () => {
  it('classifies tools by name (descriptor edit tools and the shared edit list first) and ACP kinds, unknown as execute', () => {
    expect(
      ['Write', 'Edit', 'Read', 'Grep', 'Bash', 'mcp__x__y', 'fileChange', 'write_file'].map((n) =>
        classifyToolName(n, ['Write', 'Edit']),
      ),
    ).toEqual(['edit', 'edit', 'read', 'read', 'execute', 'execute', 'edit', 'edit']);
    expect(classifyToolName('MultiEdit')).toBe('edit');
    expect(classifyToolName('custom_writer', ['custom_writer'])).toBe('edit');
    expect(
      ['read', 'search', 'fetch', 'think', 'edit', 'delete', 'move', 'execute', 'switch_mode', 'other', undefined].map(
        classifyAcpKind,
      ),
    ).toEqual(['read', 'read', 'read', 'read', 'edit', 'edit', 'edit', 'execute', 'execute', 'execute', 'execute']);
  });
});
