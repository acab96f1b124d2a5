#!/usr/bin/env node
// noderepair-demo (`pnpm demo` at the repository root): see README.md.
import { parseCli, usage } from './args.js';
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
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  return runDemo({
    report: opts.report,
    live: !opts.plain && process.stdout.isTTY === true,
    timeoutSeconds: opts.timeoutSeconds,
    logDir: opts.logDir,
    out: process.stdout,
    signal: stop.signal,
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(
      `noderepair-demo: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exit(1);
  },
);
