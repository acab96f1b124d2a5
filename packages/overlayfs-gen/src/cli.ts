#!/usr/bin/env node
// Entry point of the overlayfs-gen binary.
import { main } from './cli/index.js';

process.exitCode = await main(process.argv.slice(2));
