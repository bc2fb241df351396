import { describe, expect, it } from 'vitest';
import { askPaths } from '../../../engine/posture/index.js';

describe('askPaths', () => {
  it("reads the keys the CLIs' asks use: OpenCode's filepath and parentDir, Copilot's fileName", () => {
    expect(askPaths({ filepath: '/w/a.txt', parentDir: '/w' })).toEqual(['/w/a.txt', '/w']);
    expect(askPaths({ fileName: '/w/b.txt', diff: 'x' })).toEqual(['/w/b.txt']);
  });

  it('reads a bare patch text (a raw input that is the apply_patch body), renames included', () => {
    const patch =
      '*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../b.txt\n@@\n-x\n+y\n*** Delete File: c.txt\n*** End Patch\n';
    expect(askPaths(patch)).toEqual(['a.txt', '../b.txt', 'c.txt']);
    expect(askPaths({ rawInput: patch })).toEqual(['a.txt', '../b.txt', 'c.txt']);
  });
});
