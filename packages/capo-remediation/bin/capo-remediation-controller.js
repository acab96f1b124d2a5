#!/usr/bin/env node
// The `capo-remediation-controller` command. pnpm links a workspace package's bins when it installs, before
// any build, so the bin is this committed file, not dist/controller/main.js, which the build makes.
// It runs the compiled program as the program: process.argv[1] names it (the program checks
// that it is the main module, not an import).
import { fileURLToPath } from 'node:url';

const program = new URL('../dist/controller/main.js', import.meta.url);
process.argv[1] = fileURLToPath(program);
await import(program.href);
