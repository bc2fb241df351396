/**
 * The ecosystems `neo init` recognises, each by the files that mark it (first match wins, in
 * this order: a JS front end beside a Python back end is scaffolded for its package.json), and
 * where each keeps its tests — the globs a scaffolded `protect:` offers, beside the ecosystem's
 * preset (engine/posture/protect-presets.ts).
 */

export type Ecosystem = 'node' | 'python' | 'go' | 'rust';

export const ECOSYSTEMS: Readonly<Record<Ecosystem, { markers: readonly string[] }>> = {
  node: { markers: ['package.json'] },
  python: { markers: ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'requirements-dev.txt'] },
  go: { markers: ['go.mod'] },
  rust: { markers: ['Cargo.toml'] },
};

/** Test locations by ecosystem; `any` when none was recognised. */
export const TEST_GLOBS: Readonly<Record<Ecosystem | 'any', readonly string[]>> = {
  node: ['test/**', 'tests/**', '**/__tests__/**', '**/*.test.*', '**/*.spec.*'],
  python: ['**/tests/**', '**/test/**', '**/test_*.py', '**/*_test.py'],
  go: ['**/*_test.go', '**/testdata/**'],
  rust: ['tests/**', 'benches/**'],
  any: ['test/**', 'tests/**'],
};

/**
 * Test files some runners find by their name rather than their folder: ava, tape and
 * `node --test` run a root `test.js` (and `test-*.js`, `*-test.js`, `*_test.js`), tsd its
 * `*.test-d.ts`. Offered only where the repository has one: a `test.md` is rarely a test.
 */
export const NAMED_TEST_GLOBS: Readonly<Partial<Record<Ecosystem, readonly string[]>>> = {
  node: ['**/test.*', '**/test-*.*', '**/*-test.*', '**/*_test.*', '**/*.test-d.*'],
};
