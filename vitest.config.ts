import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel on two workers; the mock tests start Prism processes.
    maxWorkers: 2,
    // No test keeps stub state in the tree: those that keep it give a folder of their own.
    env: { STUB_STATE_DIR: 'off' },
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
