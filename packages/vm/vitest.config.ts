import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

export default defineConfig(project('vm'));
