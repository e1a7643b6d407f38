import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel on two workers; the mock tests start Prism processes.
    maxWorkers: 2,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
