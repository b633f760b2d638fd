import { defineConfig } from 'vitest/config';

/**
 * Browser tests: a real server (built app) and Debian's Chromium driven by playwright-core.
 * Run with `npm run test:e2e`; they build the app first when the build is missing or stale.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    maxWorkers: 1,
    // A browser on a shared 2-core machine misses a beat now and then: a failed test gets two more tries.
    retry: 2,
    reporters: ['default'],
  },
});
