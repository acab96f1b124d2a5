import { defineConfig } from 'vitest/config';

// Only the e2e suite, and only when asked (`pnpm test:e2e` sets the variable): the root
// config loads every packages/*/vitest.config.ts as a unit project, and unit runs must never
// install or start OpenStack.
const enabled = process.env['NODEREPAIR_OPENSTACK_E2E'] === '1';

export default defineConfig({
  test: {
    name: 'openstack-testbed',
    include: enabled ? ['**/*.e2e.test.ts'] : [],
    exclude: ['**/node_modules/**', '**/dist/**'],
    passWithNoTests: !enabled,
    fileParallelism: false,
    // A cold install downloads and configures ~300 Debian packages.
    hookTimeout: 1_800_000,
    testTimeout: 300_000,
  },
});
