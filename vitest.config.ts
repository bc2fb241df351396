import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The e2e leak harness (it acts on tests/e2e only): nothing a test started outlives it.
    setupFiles: ['tests/setup/e2e-leaks.ts'],
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
