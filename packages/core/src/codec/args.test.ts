import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseBindAddress, parseFlagsStrict } from './args.js';

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

describe('parseBindAddress', () => {
  it('accepts controller-runtime style addresses and "0" to disable', () => {
    expect(parseBindAddress(':8080', 'f')).toEqual(E.right({ port: 8080 }));
    expect(parseBindAddress('127.0.0.1:9090', 'f')).toEqual(
      E.right({ host: '127.0.0.1', port: 9090 }),
    );
    expect(parseBindAddress('[::1]:8081', 'f')).toEqual(E.right({ host: '::1', port: 8081 }));
    expect(parseBindAddress('8081', 'f')).toEqual(E.right({ port: 8081 }));
    expect(parseBindAddress('0', 'f')).toEqual(E.right('disabled'));
  });

  it('names the flag and the expected form on bad input', () => {
    expect(parseBindAddress('localhost', '--metrics-bind-address')).toEqual(
      E.left(
        '--metrics-bind-address: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got "localhost"',
      ),
    );
    expect(E.isLeft(parseBindAddress(':70000', 'f'))).toBe(true);
    expect(E.isLeft(parseBindAddress('::1:8080', 'f'))).toBe(true); // IPv6 needs brackets, as in Go
    expect(parseBindAddress('a"\nb', '--f')).toEqual(
      E.left(
        '--f: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got "a\\"\\nb"',
      ),
    );
  });
});
