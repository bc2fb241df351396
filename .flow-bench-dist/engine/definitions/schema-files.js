import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { KIND_INFO } from './kinds.js';
/** Schema file names by kind, plus the shared vocabulary. */
export const SCHEMA_FILES = {
    ...Object.fromEntries(Object.entries(KIND_INFO).map(([kind, info]) => [kind, info.schema])),
    common: 'common.schema.json',
};
/** Absolute path of a schema file in neo's install. */
export function schemaPath(name) {
    return join(packageRoot(), 'schemas', name);
}
