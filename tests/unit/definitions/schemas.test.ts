import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Every property schema under `properties` anywhere in a schema, with its JSON path. */
function properties(node: unknown, path: string, out: Array<[string, Record<string, unknown>]>): void {
  if (Array.isArray(node)) node.forEach((item, i) => properties(item, `${path}/${i}`, out));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value !== null && typeof value === 'object') {
        for (const [name, schema] of Object.entries(value as Record<string, unknown>))
          out.push([`${path}/properties/${name}`, schema as Record<string, unknown>]);
      }
      if (key !== 'examples' && key !== 'default' && key !== 'enum' && key !== 'const')
        properties(value, `${path}/${key}`, out);
    }
  }
}

describe('schemas/', () => {
  it('every property of every schema has a description (directly or through its $ref)', async () => {
    const files = (await readdir(join(root, 'schemas'))).filter((f) => f.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    const missing: string[] = [];
    for (const file of files) {
      const schema = JSON.parse(await readFile(join(root, 'schemas', file), 'utf8')) as unknown;
      const found: Array<[string, Record<string, unknown>]> = [];
      properties(schema, file, found);
      for (const [path, property] of found)
        if (typeof property.description !== 'string' && typeof property.$ref !== 'string') missing.push(path);
    }
    expect(missing).toEqual([]);
  });

  it('every packaged YAML definition starts with a schema modeline', async () => {
    const without: string[] = [];
    for (const folder of ['backends', 'policies', 'capabilities', 'routing']) {
      const dir = join(root, 'definitions', folder);
      for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
        const first = (await readFile(join(dir, file), 'utf8')).split('\n')[0] ?? '';
        const expected = `# yaml-language-server: $schema=../../schemas/${folder === 'backends' ? 'backend' : folder === 'policies' ? 'policy' : folder === 'capabilities' ? 'capability' : 'routing'}.schema.json`;
        if (first !== expected) without.push(`${folder}/${file}`);
      }
    }
    expect(without).toEqual([]);
  });
});
