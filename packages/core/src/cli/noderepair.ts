#!/usr/bin/env node
// The noderepair command line: `noderepair simulate` replays a node-condition trace through
// the repair policy in virtual time so operators can tune it on their history;
// `noderepair run` runs the standalone auto-repair controller (see run.ts);
// `noderepair status` shows what it thinks of each node and why a node is held (status.ts);
// `noderepair reset-latch` releases the storm guard's latch, a person's act (reset-latch.ts).
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import * as either from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { parseFlagsStrict } from '../codec/args.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { parseDuration } from '../health/time.js';
import { parseTrace } from './trace.js';
import { runCommand, runUsage, type RunIo } from './run.js';
import { statusCommand, statusUsage, type StatusIo } from './status.js';
import { resetLatchCommand, resetLatchUsage, type ResetLatchIo } from './reset-latch.js';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readFile: (path: string) => Promise<string>;
  /** For `run`: stop signal, environment, provider modules and working directory (see run.ts). */
  run?: Pick<RunIo, 'signal' | 'env' | 'providers' | 'cwd'>;
  /** For `status`: the environment (KUBECONFIG) and, in tests, the clock. */
  status?: Pick<StatusIo, 'env' | 'now'>;
  /** For `reset-latch`: the environment and, in tests, the client. */
  resetLatch?: Pick<ResetLatchIo, 'env' | 'client'>;
}

const usage = `usage: noderepair simulate --policy <policy.yaml> --trace <trace.jsonl> [--json] [--horizon <duration>]

  --policy   repair policy (YAML or JSON); {} gives the defaults
  --trace    JSON Lines trace, one node observation per line (see https://github.com/noderepair/noderepair/blob/main/packages/core/docs/simulate.md)
  --json     print one JSON object per decision instead of text
  --horizon  keep following timers this long after the last trace line (default 24h)

${runUsage}

${statusUsage}

${resetLatchUsage}`;

/** Runs the CLI; returns the exit code (0 ok, 1 bad input, 2 bad usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(usage);
    return command === undefined ? 2 : 0;
  }
  if (command === 'run') return runCommand(rest, { ...io, ...io.run });
  if (command === 'status') return statusCommand(rest, { ...io, ...io.status });
  if (command === 'reset-latch') return resetLatchCommand(rest, { ...io, ...io.resetLatch });
  if (command !== 'simulate') {
    io.stderr(`noderepair: unknown command "${command}"\n${usage}`);
    return 2;
  }
  const parsed = parseFlagsStrict(rest, {
    policy: { type: 'string' },
    trace: { type: 'string' },
    json: { type: 'boolean' },
    horizon: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (either.isLeft(parsed)) {
    io.stderr(`noderepair simulate: ${parsed.left}\n${usage}`);
    return 2;
  }
  const values = parsed.right;
  if (values.help === true) {
    io.stdout(usage);
    return 0;
  }
  if (values.policy === undefined || values.trace === undefined) {
    io.stderr(`noderepair simulate: --policy and --trace are required\n${usage}`);
    return 2;
  }
  let horizonMs: number | undefined;
  if (values.horizon !== undefined) {
    const h = parseDuration(values.horizon);
    if (either.isLeft(h)) {
      io.stderr(`noderepair simulate: --horizon: ${h.left}`);
      return 2;
    }
    horizonMs = h.right;
  }
  let policyText: string;
  let traceText: string;
  try {
    [policyText, traceText] = await Promise.all([
      io.readFile(values.policy),
      io.readFile(values.trace),
    ]);
  } catch (e) {
    io.stderr(
      `noderepair simulate: cannot read input: ${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`.trim(),
    );
    return 1;
  }
  let policyDoc: unknown;
  try {
    policyDoc = YAML.parse(policyText);
  } catch (e) {
    io.stderr(
      `noderepair simulate: ${values.policy}: not valid YAML: ${(e as Error).message.split('\n')[0]}`,
    );
    return 1;
  }
  const policy = resolveRepairPolicy(policyDoc ?? {});
  if (either.isLeft(policy)) {
    io.stderr(`noderepair simulate: ${values.policy}: ${policy.left}`);
    return 1;
  }
  const trace = parseTrace(traceText);
  if (either.isLeft(trace)) {
    io.stderr(`noderepair simulate: ${values.trace}: ${trace.left}`);
    return 1;
  }
  // Imported here, not at the top: it loads rxjs, which `noderepair run` does not need.
  const { formatDecisionText, simulate } = await import('./simulate.js');
  const decisions = simulate(
    policy.right,
    trace.right,
    horizonMs !== undefined ? { horizonMs } : {},
  );
  for (const d of decisions)
    io.stdout(values.json === true ? JSON.stringify(d) : formatDecisionText(d));
  return 0;
}

/** True when this file is the program (also through the npm bin symlink), not an import. */
function isMain(): boolean {
  const argv1 = process.argv[1];
  if (argv1 === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(argv1)).href;
  } catch {
    return false;
  }
}

// Run when executed directly (bin), not when imported by tests.
if (isMain()) {
  runCli(process.argv.slice(2), {
    stdout: (l) => process.stdout.write(`${l}\n`),
    stderr: (l) => process.stderr.write(`${l}\n`),
    readFile: (p) => readFile(p, 'utf8'),
    run: { env: process.env },
    status: { env: process.env },
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`noderepair: unexpected error: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
