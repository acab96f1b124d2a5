import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

// `pnpm --filter @noderepair/demo test:e2e` (CI runs every test:e2e script): the unit tests of
// the pure parts, then the whole demo as a child process and its HTML report in headless
// Chromium. The root vitest run does not list this package's project, so the unit tests run here.
export default defineConfig(
  project('demo-e2e', {
    include: ['src/**/*.test.ts', 'test/**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  }),
);
