import { defineConfig } from 'vitest/config';
import { project } from '../../vitest.shared.js';

// Unit tests of the demo's pure parts (timeline, summary, view formatting, HTML report).
export default defineConfig(project('demo'));
