import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, test } from 'vitest';
import { tempDir } from '../../../helpers/temp.js';
import { ACTION_KEYS } from '../../../../engine/transports/script/index.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

type Schema = {
  $ref?: string;
  description?: string;
  examples?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  $defs?: Record<string, Schema>;
};

const schema = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../../schemas/script.schema.json', import.meta.url)), 'utf8'),
) as Schema;

function resolveRef(node: Schema): Schema {
  return node.$ref === undefined ? node : schema.$defs![node.$ref.replace('#/$defs/', '')]!;
}

/** Every named property, with its path. */
function properties(
  node: Schema,
  path: string,
  out: Array<[string, Schema]> = [],
  seen = new Set<Schema>(),
): Array<[string, Schema]> {
  if (seen.has(node)) return out;
  seen.add(node);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    out.push([`${path}.${key}`, child]);
    properties(resolveRef(child), `${path}.${key}`, out, seen);
  }
  if (node.items !== undefined) properties(resolveRef(node.items), `${path}[]`, out, seen);
  for (const branch of node.oneOf ?? []) properties(resolveRef(branch), path, out, seen);
  return out;
}

describe('schemas/script.schema.json', () => {
  test('every property has a description and examples (on itself or on the definition it names)', () => {
    const all = properties(schema, 'script');
    expect(all.length).toBeGreaterThan(40);
    const missing = all
      .filter(
        ([, node]) => node.description === undefined || (node.examples ?? resolveRef(node).examples) === undefined,
      )
      .map(([path]) => path);
    expect(missing).toEqual([]);
  });

  test('the action keys the code knows are exactly the schema’s', () => {
    expect(Object.keys(schema.$defs!.action!.properties!)).toEqual([...ACTION_KEYS]);
  });
});
