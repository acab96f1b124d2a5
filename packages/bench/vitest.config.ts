import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

// Unit tests of the pure parts only (statistics, tables, parsers); the benchmark itself is
// `pnpm bench`, never a test: figures are reported, not asserted.
export default defineConfig(project('bench'));
