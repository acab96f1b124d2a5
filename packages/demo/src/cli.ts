#!/usr/bin/env node
// noderepair-demo (`pnpm demo` at the repository root): see README.md.
import { resolve } from 'node:path';
import { parseCli, usage } from './args.js';
import { DemoSetupError } from './cloud/testbed-check.js';
import { runDemo } from './demo.js';

async function main(): Promise<number> {
  const opts = parseCli(process.argv.slice(2));
  if (typeof opts === 'string') {
    const help = opts === usage;
    (help ? process.stdout : process.stderr).write(
      `${help ? '' : `noderepair-demo: ${opts}\n`}${usage}\n`,
    );
    return help ? 0 : 2;
  }
  // pnpm runs the script in packages/demo; paths are meant from where the user typed the command.
  const base = process.env['INIT_CWD'] ?? process.cwd();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  return runDemo({
    report: opts.report === undefined ? undefined : resolve(base, opts.report),
    live: !opts.plain && process.stdout.isTTY === true,
    timeoutSeconds: opts.timeoutSeconds,
    logDir: opts.logDir === undefined ? undefined : resolve(base, opts.logDir),
    openstack: opts.openstack,
    out: process.stdout,
    signal: stop.signal,
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    // Something to set up first (the test bed): the message says what; no stack trace.
    if (e instanceof DemoSetupError) {
      process.stderr.write(`noderepair-demo: ${e.message}\n`);
      process.exit(3);
    }
    process.stderr.write(
      `noderepair-demo: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exit(1);
  },
);
