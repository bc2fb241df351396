import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('engine/generated matches schemas/', () => {
  it('every generated file is what `npm run gen` would write now', async () => {
    const { generate } = (await import(join(root, 'scripts', 'gen-types.mjs'))) as {
      generate(): Promise<Record<string, string>>;
    };
    const files = await generate();
    const stale: string[] = [];
    for (const [name, text] of Object.entries(files)) {
      const current = await readFile(join(root, 'engine', 'generated', name), 'utf8').catch(() => '');
      if (current !== text) stale.push(name);
    }
    expect(stale, 'run `npm run gen` and commit engine/generated/').toEqual([]);
  });

  it("every schema's $id is this release's published file (package name and version)", async () => {
    const { stampSchemaIds } = (await import(join(root, 'scripts', 'gen-types.mjs'))) as {
      stampSchemaIds(options: { write: boolean }): Promise<string[]>;
    };
    expect(await stampSchemaIds({ write: false }), 'run `npm run gen` and commit schemas/').toEqual([]);
  });
});
