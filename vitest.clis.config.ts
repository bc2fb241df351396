import { defineConfig } from 'vitest/config';

// The real-CLI conformance suite (`npm run test:clis`): each file drives one real coding CLI,
// installed by scripts/install-clis.mjs, against `neo model serve`. Kept out of `npm test`
// (its include is tests/**/*.test.ts; these files are *.cli-test.ts).
export default defineConfig({
  test: {
    include: ['tests/clis/**/*.cli-test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: the CLIs are heavy (Bun and Rust binaries); one file at a time keeps turns steady.
    fileParallelism: false,
    // The leak harness of tests/e2e: no CLI, command or `neo` a test started outlives it, no run is
    // left `running`, every events file is gapless.
    setupFiles: ['tests/setup/e2e-leaks.ts'],
    reporters: ['verbose'],
  },
});
