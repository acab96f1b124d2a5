import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { alias } from './vitest.shared.js';

// Unit projects: one per package (packages/*/vitest.config.ts), pure and fast.
// Integration project: every *.int.test.ts of every package, against real kube-apiservers
// that @noderepair/envtest's global setup starts once per worker.
export default defineConfig({
  test: {
    // At least two workers even on a 2-core machine: integration files mostly wait on their
    // API servers, and each worker gets its own control plane (so two must never collide).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // Unit projects (the e2e packages' configs are run by their own test:e2e scripts).
      ...[
        'core',
        'openstack',
        'capo-remediation',
        'overlayfs-gen',
        'envtest',
        'bench',
        'vm',
        'chaos',
        'sim',
      ].map((p) => `packages/${p}/vitest.config.ts`),
      // examples/: every example type-checks and runs (examples/test), and their own tests.
      'examples/vitest.config.ts',
      {
        resolve: { alias },
        test: {
          name: 'integration',
          root: '.',
          include: [
            'packages/*/src/**/*.int.test.ts',
            'packages/*/test/**/*.int.test.ts',
            'examples/test/**/*.int.test.ts',
            'examples/*/test/**/*.int.test.ts',
          ],
          globalSetup: ['packages/envtest/src/vitest/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
      // The README's generated reference tables and the Grafana dashboard checked against the code.
      {
        resolve: { alias },
        test: { name: 'docs', root: '.', include: ['docs/**/*.test.ts'], testTimeout: 60_000 },
      },
    ],
  },
});
