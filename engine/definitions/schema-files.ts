import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { PACKAGE_NAME, packageRoot, packageVersion } from '../util/package-root.js';
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
 * The published URL of schema `name` in this very release (its package name and version): each
 * schema's `$id` is this URL (`npm run gen` stamps it), so an editor following it gets the schema
 * this neo validates with.
 */
export function schemaUrl(name: string): string {
  return `https://unpkg.com/${PACKAGE_NAME}@${packageVersion()}/schemas/${name}`;
}

/**
 * How a file written at `from` should point at schema `name` in its `yaml-language-server`
 * modeline, resolved from the project: relative to a copy of neo installed in the project
 * (`node_modules/neo-flow/schemas/`, or this checkout when neo runs from inside the project),
 * else the published URL of this version. Never an absolute path: it would break on another machine.
 */
export function modelineRef(from: string, name: string, project: string): string {
  const installed = [join(project, 'node_modules', PACKAGE_NAME, 'schemas', name), schemaPath(name)];
  for (const schema of installed) {
    const rel = relative(project, schema);
    if (!rel.startsWith('..') && !isAbsolute(rel) && existsSync(schema))
      return relative(dirname(from), schema).split(sep).join('/');
  }
  // Pinned to the version, so an editor checks the file against the schemas of the neo that wrote it.
  return schemaUrl(name);
}
