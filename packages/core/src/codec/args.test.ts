import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseFlagsStrict } from './args.js';

const options = {
  policy: { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('parseFlagsStrict', () => {
  it('parses known flags in both spellings', () => {
    expect(parseFlagsStrict(['--policy', 'p.yaml', '--dry-run'], options)).toEqual(
      E.right({ policy: 'p.yaml', 'dry-run': true }),
    );
    expect(parseFlagsStrict(['--policy=p.yaml'], options)).toEqual(E.right({ policy: 'p.yaml' }));
  });

  it('names an unknown flag, the flag probably meant and the known ones', () => {
    expect(parseFlagsStrict(['--polcy', 'p'], options)).toEqual(
      E.left(
        'unknown flag --polcy (did you mean --policy?); known flags: --policy, --dry-run, --help',
      ),
    );
    expect(parseFlagsStrict(['--dryrun'], options)).toEqual(
      E.left(
        'unknown flag --dryrun (did you mean --dry-run?); known flags: --policy, --dry-run, --help',
      ),
    );
    expect(parseFlagsStrict(['-x'], options)).toEqual(
      E.left('unknown flag -x; known flags: --policy, --dry-run, --help'),
    );
  });

  it('names a flag without its value, a value given to a switch, and stray arguments', () => {
    expect(parseFlagsStrict(['--policy'], options)).toEqual(E.left('--policy needs a value'));
    expect(parseFlagsStrict(['--policy', '--dry-run'], options)).toEqual(
      E.left('--policy needs a value'),
    );
    expect(parseFlagsStrict(['--help=yes'], options)).toEqual(E.left('--help takes no value'));
    expect(parseFlagsStrict(['policy.yaml'], options)).toEqual(
      E.left('unexpected argument "policy.yaml" (flags start with --)'),
    );
  });
});
