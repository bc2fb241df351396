import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';

/** Schema file names by kind, plus the shared vocabulary. */
export const SCHEMA_FILES: Record<DefinitionKind | 'common', string> = {
  ...(Object.fromEntries(Object.entries(KIND_INFO).map(([kind, info]) => [kind, info.schema])) as Record<DefinitionKind, string>),
  common: 'common.schema.json',
};

/** Absolute path of a schema file in neo's install. */
export function schemaPath(name: string): string {
  return join(packageRoot(), 'schemas', name);
}
