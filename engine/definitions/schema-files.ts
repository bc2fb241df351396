import { dirname, join, relative, sep } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';

/** Schema file names by kind, plus the shared vocabulary. */
export const SCHEMA_FILES: Record<DefinitionKind | 'common', string> = {
  ...(Object.fromEntries(Object.entries(KIND_INFO).map(([kind, info]) => [kind, info.schema])) as Record<
    DefinitionKind,
    string
  >),
  common: 'common.schema.json',
};

/** Absolute path of a schema file in neo's install. */
export function schemaPath(name: string): string {
  return join(packageRoot(), 'schemas', name);
}

/**
 * How a file written at `from` should point at `schema` in its `yaml-language-server` modeline:
 * relative (with forward slashes) when close by, absolute when the way up is long.
 */
export function modelinePath(from: string, schema: string): string {
  const rel = relative(dirname(from), schema);
  return rel.startsWith(`..${sep}..${sep}..`) ? schema : rel.split(sep).join('/');
}
