import { defineConfig } from 'vitest/config';
import { project } from '../vitest.shared.js';

// Unit tests of the examples (examples/test: every example type-checks and runs; each
// example's own test/). Their *.int.test.ts files run in the root integration project.
export default defineConfig(
  project('examples', {
    include: ['test/**/*.test.ts', '*/test/**/*.test.ts'],
    exclude: ['**/*.int.test.ts', '**/node_modules/**', '**/dist/**'],
  }),
);
