// A provider's options from the command line: `--provider-opt key=value` (repeatable) and
// `--cloud NAME` (shorthand for `cloud=NAME`). Strict like every other input: a malformed or
// repeated option, or a name the provider does not list, is an error naming it, so a typo
// never becomes a provider default (a misspelt cloud would otherwise reach another cloud).
import * as either from 'fp-ts/lib/Either.js';
import { closestName } from '../codec/unknown-fields.js';
import type { ProviderModule } from './module.js';

/** One provider option as given on the command line. */
export interface GivenOption {
  /** The option's value as given. */
  readonly value: string;
  /** The flag it came from, for messages: "--provider-opt" or "--cloud". */
  readonly flag: string;
}

/** Parses the flags' values into options by name. Pure. */
export function parseProviderOptions(
  opts: readonly string[],
  cloud: string | undefined,
): either.Either<string, Readonly<Record<string, GivenOption>>> {
  const out: Record<string, GivenOption> = {};
  const add = (key: string, o: GivenOption): string | undefined => {
    const prior = out[key];
    if (prior !== undefined)
      return `${o.flag}: option "${key}" is given twice (also by ${prior.flag})`;
    out[key] = o;
    return undefined;
  };
  if (cloud !== undefined) {
    if (cloud === '') return either.left('--cloud: expected a cloud name from clouds.yaml');
    add('cloud', { value: cloud, flag: '--cloud' });
  }
  for (const kv of opts) {
    const eq = kv.indexOf('=');
    if (eq <= 0)
      return either.left(`--provider-opt: expected key=value, got ${JSON.stringify(kv)}`);
    const problem = add(kv.slice(0, eq), { value: kv.slice(eq + 1), flag: '--provider-opt' });
    if (problem !== undefined) return either.left(problem);
  }
  return either.right(out);
}

/** The options `module.create` gets, or a message naming the first option it does not take. Pure. */
export function providerOptionsFor(
  module: Pick<ProviderModule, 'name' | 'options'>,
  given: Readonly<Record<string, GivenOption>>,
): either.Either<string, Readonly<Record<string, string>>> {
  const accepted = Object.keys(module.options);
  const out: Record<string, string> = {};
  for (const [key, o] of Object.entries(given)) {
    if (!Object.hasOwn(module.options, key)) {
      const meant = closestName(key, accepted);
      return either.left(
        `${o.flag}: provider "${module.name}" has no option "${key}"${meant !== undefined ? ` (did you mean "${meant}"?)` : ''}; its options: ${accepted.length > 0 ? accepted.join(', ') : 'none'}`,
      );
    }
    out[key] = o.value;
  }
  return either.right(out);
}
