// Unit project of the simulator: fixed seeds through the real controller on a virtual clock,
// the invariants over their histories, and the mutant checks that show the invariants can fail.
import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(project('sim', { include: ['src/**/*.test.ts'] }));
