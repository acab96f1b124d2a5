// Tests that need root: the image build (debootstrap, mkfs), and unmount-under.sh against real
// mounts (what build-rootfs.sh runs before it removes a half-built rootfs). Run with
// `pnpm --filter @noderepair/vm test:vm`.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(
  project('vm-vm', {
    include: ['src/**/*.vm.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // One VM at a time: the machine has 2 cores and TCG emulation is CPU-bound.
    fileParallelism: false,
    testTimeout: 15 * 60_000,
    hookTimeout: 30 * 60_000,
  }),
);
