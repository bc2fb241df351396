import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefinitions, type Diagnostic } from '../../../engine/definitions/index.js';
import { tempDir } from '../../helpers/temp.js';

const root = fileURLToPath(new URL('../../fixtures/definitions/', import.meta.url));
const invalid = join(root, 'invalid');
const packaged = join(root, 'packaged');

async function definitionFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await definitionFiles(path)));
    else if (/\.(ya?ml|md)$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** One line per diagnostic: position, severity, code, message and hint. */
export function goldenLines(diagnostics: readonly Diagnostic[], base: string): string {
  return diagnostics
    .map((d) => {
      const s = d.span;
      const where = s
        ? `${relative(base, s.file)}:${s.start.line}:${s.start.column}-${s.end.line}:${s.end.column}`
        : '-';
      const related = (d.related ?? [])
        .map((r) => ` [${r.message} ${r.span.start.line}:${r.span.start.column}]`)
        .join('');
      return `${where} ${d.severity}[${d.code}] ${d.message}${d.hint ? ` | hint: ${d.hint}` : ''}${related}`;
    })
    .join('\n');
}

const files = await definitionFiles(invalid);

describe('invalid definition fixtures produce exactly their recorded diagnostics', () => {
  it('has at least 30 fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  for (const file of files) {
    it(relative(invalid, file), async () => {
      const home = await tempDir();
      const { diagnostics } = await loadDefinitions({ packaged, home, cwd: home, noProject: true, paths: [file] });
      const mine = diagnostics.filter((d) => d.span?.file === file);
      const actual = goldenLines(mine, invalid);
      const golden = `${file}.golden`;
      if (process.env.UPDATE_GOLDEN) await writeFile(golden, `${actual}\n`);
      const expected = (await readFile(golden, 'utf8')).trimEnd();
      expect(actual).toBe(expected);
      expect(mine.length).toBeGreaterThan(0);
    });
  }
});
