import { defineConfig } from 'vitest/config';
import { alias } from '../../vitest.shared.js';

// Only the e2e suite, and only when asked (`pnpm test:e2e` sets the variable): the root
// config loads every packages/*/vitest.config.ts as a unit project, and unit runs must never
// install or start OpenStack.
const enabled = process.env['NODEREPAIR_OPENSTACK_E2E'] === '1';

export default defineConfig({
  // Workspace packages (envtest, core) resolve to their TypeScript sources, as in every
  // other vitest project of the repo.
  resolve: { alias },
  test: {
    name: 'openstack-testbed',
    include: enabled ? ['**/*.e2e.test.ts'] : [],
    exclude: ['**/node_modules/**', '**/dist/**'],
    passWithNoTests: !enabled,
    // One testbed for the whole run, stopped after the last file (see the file).
    globalSetup: enabled ? ['test/support/global-setup.ts'] : [],
    fileParallelism: false,
    // A cold install downloads and configures ~300 Debian packages.
    hookTimeout: 1_800_000,
    testTimeout: 300_000,
  },
});
