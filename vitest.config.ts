import { defineConfig } from 'vitest/config';

const common = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/e2e/**', 'node_modules/**'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

/**
 * The tests of stored files run once more with the files in a real S3 test server's bucket (decision
 * 041), on PostgreSQL when it is there (the several-instance setting), else on SQLite.
 */
const fileStoreTests = [
  'test/files.test.ts',
  'test/attachments.test.ts',
  'test/avatars.test.ts',
  'test/admin-database.test.ts',
  'test/upload-access.test.ts',
];

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
      {
        test: {
          ...common,
          include: fileStoreTests,
          name: 's3',
          globalSetup: ['test/helpers/s3-global.ts'],
          env: {
            DOCKET_TEST_DIALECT: process.env.DOCKET_TEST_DATABASE_URL ? 'postgres' : 'sqlite',
            DOCKET_TEST_FILE_STORE: 's3',
          },
        },
      },
    ],
  },
});
