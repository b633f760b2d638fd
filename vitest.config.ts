import { defineConfig } from 'vitest/config';

const common = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/e2e/**', 'node_modules/**'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

/**
 * The suite runs on SQLite always, and a second time on PostgreSQL when DOCKET_TEST_DATABASE_URL
 * is set (CI sets it). Browser tests live in test/e2e and run with `npm run test:e2e`.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { ...common, name: 'sqlite', env: { DOCKET_TEST_DIALECT: 'sqlite' } } },
      ...(process.env.DOCKET_TEST_DATABASE_URL
        ? [{ test: { ...common, name: 'postgres', env: { DOCKET_TEST_DIALECT: 'postgres' } } }]
        : []),
    ],
  },
});
