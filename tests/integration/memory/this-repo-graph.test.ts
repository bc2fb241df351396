/**
 * The code graph on this repository's own memory code (indexed by folder, so the test stays
 * small): its definitions, callers across files, an import resolved by TypeScript's `.js` rule,
 * and the tests that exercise it.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callers, findSymbol, imports, indexRepository, openMemory, testsFor } from '../../../engine/memory/index.js';
import { tempDir } from '../../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the code graph on this repository', () => {
  it("knows where neo's memory code is defined, who calls it and which tests use it", async () => {
    const { db, repoRoot } = openMemory(join(await tempDir('neo-graph-self-'), 'home'), ROOT);
    try {
      expect(repoRoot).toBe(ROOT.replace(/\/$/, ''));
      await indexRepository(db, repoRoot, { only: 'engine/memory' });
      const report = await indexRepository(db, repoRoot, { only: 'tests/unit/memory' });
      expect(report.parsed).toBeGreaterThan(0);
      expect(findSymbol(db, 'openMemory')).toEqual([
        expect.objectContaining({ kind: 'function', file: 'engine/memory/database.ts' }),
      ]);
      expect(callers(db, 'repositoryRoot')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ caller: 'openMemory', file: 'engine/memory/database.ts' }),
          expect.objectContaining({ caller: 'handle', file: 'engine/memory/run-memory.ts' }),
        ]),
      );
      expect(imports(db, 'engine/memory/database.ts').imports).toContainEqual(
        expect.objectContaining({ spec: './migrations.js', target: 'engine/memory/migrations.ts' }),
      );
      expect(testsFor(db, 'repoMap')).toContainEqual({
        file: 'tests/unit/memory/code-graph.test.ts',
        why: 'uses repoMap',
      });
    } finally {
      db.close();
    }
  });
});
