// `pnpm --filter @noderepair/ship test:e2e`: builds both images with podman (vfs), runs them
// as containers on envtest, renders the install bundles with the real kubectl (kustomize)
// and helm and installs them on envtest. Files run one after another (2 shared cores).
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(
  project('ship', {
    include: ['test/**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 600_000,
    hookTimeout: 1_200_000,
  }),
);
