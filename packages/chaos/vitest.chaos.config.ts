// `pnpm test:chaos`: fault injection against the real controller processes on private
// envtest control planes, plus fuzzing. Files run one after another (2 shared cores; each
// starts its own etcd + kube-apiserver), and the global setup prints the fault table at the end.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(
  project('chaos', {
    include: ['test/**/*.chaos.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    // it.concurrent scenarios (each its own namespace, FakeOpenStack and controller process):
    // three at a time on 2 shared cores.
    maxConcurrency: 3,
    testTimeout: 420_000,
    hookTimeout: 420_000,
  }),
);
