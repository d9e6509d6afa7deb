import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails a test whose fake transport saw an unexpected request or kept an unused stub.
    setupFiles: ['test/helpers/request-checks.ts'],
    // A temporary data directory for the event store of every test and the processes it starts.
    globalSetup: ['test/helpers/global-setup.ts'],
    // The deadline that ends a hung test, not a speed target (no test asserts on time). On a
    // 2-core machine shared with other work the end-to-end and load tests take several times
    // their idle time (the sandbox load test about 30 s at a load average of 20), so it is generous.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // End-to-end tests spawn the built CLI and real servers on loopback and spend much of their
    // time waiting on those processes, so a third worker fills the gaps on a two-core machine:
    // a whole run took 121 s instead of 154 s there (the CI runs the suite four times, once per
    // Node major). Every test is built to pass on a loaded machine (events and generous
    // deadlines, never sleeps or timed assertions), which this relies on.
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
  },
});
