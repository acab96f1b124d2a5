// Command-line flags are user input too: node:util parseArgs in strict mode (an unknown flag,
// a missing value or a stray argument is an error), with messages that name the flag and, for
// a misspelt one, the flag probably meant. Used by every noderepair command line.
import * as E from 'fp-ts/lib/Either.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestName } from './unknown-fields.js';

/**
 * The flag table handed to node:util parseArgs: each long flag with its type, short form and
 * default.
 */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

type Parsed<O extends FlagOptions> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>
>['values'];

/** The flag a parseArgs error message quotes: its long form when given, else `-f`. */
function quotedFlag(message: string): string | undefined {
  return /--[^'\s=,<]+/.exec(message)?.[0] ?? /'(-[^'\s=,<]+)/.exec(message)?.[1];
}

function knownFlags(options: FlagOptions): string[] {
  return Object.keys(options).map((k) => `--${k}`);
}

/** A parseArgs error as one line naming the flag: unknown (with the likely spelling), value missing, or a stray argument. */
export function describeFlagError(e: unknown, options: FlagOptions): string {
  const err = e as { code?: string; message?: string };
  const message = err.message ?? String(e);
  const flag = quotedFlag(message);
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      if (flag === undefined) break;
      const meant = flag.startsWith('--')
        ? closestName(flag.slice(2), Object.keys(options))
        : undefined;
      return `unknown flag ${flag}${meant !== undefined ? ` (did you mean --${meant}?)` : ''}; known flags: ${knownFlags(options).join(', ')}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      if (flag === undefined) break;
      return /does not take an argument/.test(message)
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /'([^']*)'/.exec(message)?.[1];
      if (arg === undefined) break;
      return `unexpected argument ${JSON.stringify(arg)} (flags start with --)`;
    }
  }
  return message.split('\n')[0] ?? message;
}

/** parseArgs with strict: true and no positionals; Left is describeFlagError's line. */
export function parseFlagsStrict<O extends FlagOptions>(
  args: readonly string[],
  options: O,
): E.Either<string, Parsed<O>> {
  try {
    return E.right(
      parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values,
    );
  } catch (e) {
    return E.left(describeFlagError(e, options));
  }
}

/** A listen address from a flag such as --metrics-bind-address. */
export interface BindAddress {
  /** Host to listen on; absent means every interface. */
  host?: string;
  /** TCP port; 0 means the listener is disabled. */
  port: number;
}

/**
 * A bind-address flag's value, as controller-runtime's flags take it: ":8080",
 * "127.0.0.1:8080", "[::1]:8080" or "8080"; "0" means disabled. Left names the flag and the
 * expected form. Pure; shared by every noderepair command line so they accept the same values.
 */
export function parseBindAddress(
  value: string,
  flag: string,
): E.Either<string, BindAddress | 'disabled'> {
  if (value === '0') return E.right('disabled');
  const m = /^(?:(\[[0-9a-fA-F:]+\]|[^:]*):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    return E.left(
      `${flag}: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got ${JSON.stringify(value)}`,
    );
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : undefined;
  return E.right({ ...(host ? { host } : {}), port });
}
