import { defineConfig } from 'vitest/config';

// One run over every package; each package's vitest.config.ts is a project.
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts'],
  },
});
