import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * How the suite runs fast (docs/decisions/061-test-speed.md): the migrations run once per project
 * into a template every test app copies (template-global.ts); src/ is transpiled once for the
 * processes tests start (compiled-global.ts); a worker runs file after file without loading the
 * modules again (`isolate: false`: each file still builds its own app and database); every core
 * runs a worker (Vitest's default leaves one idle, on 2 cores half the machine).
 */
const common = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/e2e/**', 'node_modules/**'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  globalSetup: ['test/helpers/compiled-global.ts', 'test/helpers/template-global.ts'],
  isolate: false,
  maxWorkers: Math.max(2, os.availableParallelism()),
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
 * is set (CI sets it). Browser tests live in test/e2e and run with `npm run test:e2e`. The projects
 * run one after the other (`groupOrder`), so that a worker is reused for the next file of its own
 * project (workers are not shared between projects).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...common,
          name: 'sqlite',
          env: { DOCKET_TEST_DIALECT: 'sqlite' },
          sequence: { groupOrder: 0 },
        },
      },
      ...(process.env.DOCKET_TEST_DATABASE_URL
        ? [
            {
              test: {
                ...common,
                name: 'postgres',
                env: { DOCKET_TEST_DIALECT: 'postgres' },
                sequence: { groupOrder: 1 },
              },
            },
          ]
        : []),
      {
        test: {
          ...common,
          include: fileStoreTests,
          name: 's3',
          globalSetup: [...common.globalSetup, 'test/helpers/s3-global.ts'],
          env: {
            DOCKET_TEST_DIALECT: process.env.DOCKET_TEST_DATABASE_URL ? 'postgres' : 'sqlite',
            DOCKET_TEST_FILE_STORE: 's3',
          },
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
