/**
 * Global setup of the `s3` test projects (vitest.config.ts): one real S3 test server for the run;
 * each test app gets a fresh bucket on it (test/helpers/app.ts).
 */
import type { TestProject } from 'vitest/node';
import { startS3Server } from './s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const s3 = await startS3Server();
  project.provide('s3Endpoint', s3.endpoint);
  return () => s3.stop();
}
