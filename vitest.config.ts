import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import CostSequencer from './test/helpers/cost-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One worker more than the machine has cores: many files spend part of their time waiting on the
    // processes, browsers and sockets they start (Prism, npm in a copy, Chromium), and a worker
    // per core left the cores idle meanwhile (bench/RESULTS.md).
    maxWorkers: availableParallelism() + 1,
    // A worker runs its files in one module graph instead of a fresh one per file: importing the
    // stubs, their contracts and validators again for every file was most of the suite's time
    // (bench/RESULTS.md). What modules keep is derived from files that do not change during a run
    // (parsed contracts, compiled validators, tokenizers); each test starts its own apps and clocks,
    // and restores the environment variables it sets.
    isolate: false,
    // No test keeps stub state in the tree: those that keep it give a folder of their own.
    env: { STUB_STATE_DIR: 'off' },
    // Costliest files first, and shards of equal cost rather than equal count (test/helpers/file-costs.json).
    sequence: { sequencer: CostSequencer },
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
