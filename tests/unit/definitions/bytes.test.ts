import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadDefinitionFile, personaView } from '../../../engine/definitions/index.js';
import { tempDir } from '../../helpers/temp.js';

const options = { kind: 'persona' as const, layer: 'path' as const, trusted: true };
const brief = (d: { code: string; span?: { start: { line: number; column: number } } }) =>
  `${d.code}@${d.span?.start.line}:${d.span?.start.column}`;

describe('files that are not plain UTF-8 YAML text', () => {
  it('drops a BOM and loads the file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bom.md');
    await writeFile(file, `\uFEFF---\ndescription: with a BOM\n---\nBody\n`);
    const load = await loadDefinitionFile(file, options);
    expect(load.diagnostics).toEqual([]);
    expect(load.definition?.id).toBe('bom');
  });

  it('reads CRLF files and reports positions on the right line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'crlf.md');
    await writeFile(file, '---\r\ndescription: crlf\r\nmaxPosture: fulll\r\n---\r\nBody\r\n');
    const load = await loadDefinitionFile(file, options);
    expect(load.diagnostics.map(brief)).toEqual(['DEF_BAD_VALUE@3:13']);
    await writeFile(file, '---\r\ndescription: crlf\r\nmaxRounds: 3\r\n---\r\nBody line\r\n');
    const ok = await loadDefinitionFile(file, options);
    expect(ok.diagnostics).toEqual([]);
    expect(personaView(ok.definition as never).knobs.maxRounds).toBe(3);
  });

  it('refuses invalid UTF-8 with the byte offset', async () => {
    const dir = await tempDir();
    const file = join(dir, 'latin1.md');
    await writeFile(
      file,
      Buffer.concat([Buffer.from('---\ndescription: caf'), Buffer.from([0xe9]), Buffer.from('\n---\n')]),
    );
    const load = await loadDefinitionFile(file, options);
    expect(load.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual(['DEF_ENCODING: invalid UTF-8 at byte 20']);
  });

  it('refuses a binary file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'image.md');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    const load = await loadDefinitionFile(file, options);
    expect(load.diagnostics.map(brief)).toEqual(['DEF_BINARY_FILE@1:1']);
  });

  it('refuses a 5 MB file without reading it into the parser', async () => {
    const dir = await tempDir();
    const file = join(dir, 'huge.flow.yaml');
    await writeFile(file, `name: huge\nsteps:\n${'  - { id: s, run: "true" }\n'.repeat(200_000)}`);
    const load = await loadDefinitionFile(file, { ...options, kind: 'flow' });
    expect(load.diagnostics.map((d) => d.code)).toEqual(['DEF_FILE_TOO_LARGE']);
    expect(load.diagnostics[0]!.message).toMatch(/^file is 5\.\d MB; definitions are limited to 1\.0 MB$/);
  });
});
