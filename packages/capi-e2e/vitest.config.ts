import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

// Only the end-to-end scenarios: each file starts its own control plane and its own Cluster
// API manager, so files run one after another (2 shared cores) and get generous timeouts.
export default defineConfig(
  project('capi-e2e', {
    include: ['**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 1_800_000,
  }),
);
