import { defineConfig } from 'vitest/config';

// No workspace aliases here on purpose: the test must see the packages only as tarballs.
// One file, one temp project; npm install and tsc are slow on 2 shared cores, so the
// timeouts are generous (they are limits, not expectations).
export default defineConfig({
  test: {
    name: 'pack-test',
    include: ['test/**/*.e2e.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
