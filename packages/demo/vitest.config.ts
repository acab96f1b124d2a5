import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

// Unit tests of the demo's pure parts (timeline, summary, view formatting, HTML report).
// The e2e test (test/*.e2e.test.ts) runs the whole demo: test:e2e, vitest.e2e.config.ts.
export default defineConfig(
  project('demo', { exclude: ['**/*.e2e.test.ts', '**/node_modules/**', '**/dist/**'] }),
);
