import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails a test whose fake transport saw an unexpected request or kept an unused stub.
    setupFiles: ['test/helpers/request-checks.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // End-to-end tests spawn the built CLI and real servers on loopback; two workers suit the
    // two-core machines this runs on without starving the child processes.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
