// The CLI's imperative shell: read the config, validate, render everything in memory, and
// only then write. Returns the exit code; never throws for bad input.
import { readFile } from 'node:fs/promises';
import { either } from 'fp-ts';
import { formatConfigError, parseConfig } from '../config/index.js';
import { generate } from '../generate/index.js';
import { render, writeTree } from '../formats/index.js';
import { USAGE, parseCommand } from './args.js';

export const EXIT_OK = 0;
export const EXIT_INVALID_CONFIG = 1;
export const EXIT_USAGE = 2;
export const EXIT_WRITE_FAILED = 3;

export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const defaultIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  const parsed = parseCommand(argv);
  if (!parsed.ok) {
    io.err(`overlayfs-gen: ${parsed.error}`);
    io.err(USAGE);
    return EXIT_USAGE;
  }
  const cmd = parsed.command;
  if (cmd.kind === 'help') {
    io.out(USAGE);
    return EXIT_OK;
  }

  let text: string;
  try {
    text = await readFile(cmd.config, 'utf8');
  } catch (e) {
    io.err(`overlayfs-gen: cannot read config ${cmd.config}: ${errorText(e)}`);
    return EXIT_INVALID_CONFIG;
  }
  const config = parseConfig(text);
  if (either.isLeft(config)) {
    io.err(`overlayfs-gen: ${cmd.config} is invalid (${config.left.length} problem${config.left.length === 1 ? '' : 's'}):`);
    for (const e of config.left) io.err(`  ${formatConfigError(e)}`);
    if (cmd.kind === 'generate') io.err('nothing was written');
    return EXIT_INVALID_CONFIG;
  }
  // Legal but probably not meant: said on stderr, never an error (exit 0, output written).
  for (const w of config.right.warnings ?? []) io.err(`overlayfs-gen: warning: ${w}`);
  if (cmd.kind === 'validate') {
    const c = config.right;
    io.out(`${cmd.config} is valid: ${c.volatile.length} volatile, ${c.persistent.length} persistent, ${c.healthMonitors.length} health monitor(s)`);
    return EXIT_OK;
  }

  const bundle = generate(config.right);
  const rendered = render(bundle, cmd.format, cmd.templateName === undefined ? {} : { templateName: cmd.templateName });
  if (either.isLeft(rendered)) {
    io.err(`overlayfs-gen: ${rendered.left}`);
    io.err('nothing was written');
    return EXIT_INVALID_CONFIG;
  }
  try {
    const written = await writeTree(cmd.out, rendered.right);
    for (const w of written) io.out(`wrote ${w}`);
  } catch (e) {
    io.err(`overlayfs-gen: cannot write to ${cmd.out}: ${errorText(e)}`);
    return EXIT_WRITE_FAILED;
  }
  if (cmd.format === 'files') {
    io.out('then run on the node:');
    for (const c of bundle.commands) io.out(`  ${c}`);
  }
  return EXIT_OK;
}
