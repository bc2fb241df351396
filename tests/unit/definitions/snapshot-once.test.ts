/**
 * A packaged layer without a build-time snapshot (a source checkout, a packaged folder named
 * by hand) is parsed; the missing snapshot is looked for once per load, not once per file (each
 * look a failed read that throws: hundreds of them in a large packaged folder).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../helpers/temp.js';

const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../engine/definitions/packaged-snapshot.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../engine/definitions/packaged-snapshot.js')>();
  return {
    ...actual,
    readPackagedSnapshot: (root: string) => {
      reads.count++;
      return actual.readPackagedSnapshot(root);
    },
  };
});

const { loadDefinitions } = await import('../../../engine/definitions/index.js');

describe('a packaged layer without a snapshot', () => {
  it('looks for the snapshot once and parses every file', async () => {
    const packaged = await tempDir();
    await mkdir(join(packaged, 'personas'));
    for (let i = 0; i < 5; i++)
      await writeFile(
        join(packaged, 'personas', `p${i}.md`),
        `---\ndescription: persona ${i}\n---\nBe persona ${i}.\n`,
      );
    const { set, diagnostics } = await loadDefinitions({ packaged, home: await tempDir(), noProject: true });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(set.list('persona').map((p) => p.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(reads.count).toBe(1);
  });
});
