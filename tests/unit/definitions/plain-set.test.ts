import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { plainLoad, setFromPlain } from '../../../engine/definitions/plain-set.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

describe('a definition set across a thread boundary', () => {
  it('keeps trust, what an untrusted project had ignored, and a failing-closed owner policy', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    await writeTree(root, {
      'home/policy.yaml': 'maxPosture: plan\n',
      'repo/.git/HEAD': 'ref: refs/heads/main\n',
      'repo/.neo/personas/boss.md': '---\ndescription: boss\ndriver: true\n---\n',
    });
    const loaded = await loadDefinitions({ cwd: repo, home });
    const restored = setFromPlain(structuredClone(plainLoad(loaded))).set;
    expect(restored.hash).toBe(loaded.set.hash);
    expect(restored.get('persona', 'boss')).toMatchObject({ trusted: false, ignoredFields: ['driver'] });
    expect(restored.get('persona', 'reviewer')).toMatchObject({ trusted: true });
    expect(restored.untrusted.map((d) => d.pointer)).toEqual(['/driver']);
    expect(() => restored.ownerPolicy).toThrow(expect.objectContaining({ code: 'DEF_OWNER_POLICY_INVALID' }));
  });
});
