// Tests that need root: the boot script inside `unshare -m`, and the qemu VM that boots the
// generated units for real. Run with `pnpm --filter @noderepair/overlayfs-gen test:vm`.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(
  project('overlayfs-gen-vm', {
    include: ['src/**/*.vm.test.ts', 'test/**/*.vm.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // One VM at a time: the machine has 2 cores and TCG emulation is CPU-bound.
    fileParallelism: false,
    testTimeout: 15 * 60_000,
    hookTimeout: 30 * 60_000,
  }),
);
