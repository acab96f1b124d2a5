// Tests that boot a real Kubernetes node in a qemu VM (need root, Go, a Debian mirror). Run with
// `pnpm --filter @noderepair/vm-node test:vm`.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(
  project('vm-node-vm', {
    include: ['test/**/*.vm.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // One VM at a time: the machine has 2 cores and TCG emulation is CPU-bound.
    fileParallelism: false,
    testTimeout: 15 * 60_000,
    hookTimeout: 40 * 60_000,
  }),
);
