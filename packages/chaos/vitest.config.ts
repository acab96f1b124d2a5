// Unit tests of the chaos suite's own pieces (the ledger, the provider record), run with the
// other packages' unit projects; the chaos scenarios themselves are test:chaos.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(project('chaos-unit', { include: ['src/**/*.test.ts'] }));
