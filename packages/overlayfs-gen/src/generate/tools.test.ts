// Properties checked with the real tools: every valid config yields scripts shellcheck accepts
// and units systemd-analyze verify accepts (no warnings either); every broken config is refused.
import fc from 'fast-check';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { decodeConfig } from '../config/index.js';
import { generate } from './bundle.js';
import { invalidRawConfig, validRawConfig } from '../../test/support/arbitraries.js';
import { shellcheck, systemdVerify } from '../../test/support/tools.js';

// Bounded so the suite stays well under a minute on a shared 2-core machine: shellcheck runs
// once per batch of configs (its start-up dominates), systemd-analyze once per config.
const SHELLCHECK_BATCHES = 3;
const SHELLCHECK_BATCH_SIZE = 10;
const VERIFY_RUNS = 12;

function filesOf(raw: unknown) {
  const c = decodeConfig(raw);
  if (either.isLeft(c)) throw new Error(`valid config refused: ${JSON.stringify(c.left)}`);
  return generate(c.right).files;
}

describe('generated files pass the real tools', () => {
  it('the defaults', () => {
    const files = filesOf({});
    expect(shellcheck(files)).toEqual({ status: 0, output: '' });
    expect(systemdVerify(files)).toEqual({ status: 0, output: '' });
  });

  it('an exec check whose argument starts with ~ (literal, as in the argv) passes shellcheck', () => {
    // Found by the random test below (seed -48848766): shellcheck's SC2088 took the quoted ~
    // for a forgotten expansion.
    const files = filesOf({
      healthMonitors: [
        { name: 'probe', unit: 'probe.service', check: { type: 'exec', command: ['/A', '~/'] } },
      ],
    });
    expect(shellcheck(files)).toEqual({ status: 0, output: '' });
  });

  it('random valid configs: scripts pass shellcheck', () => {
    fc.assert(
      fc.property(fc.array(validRawConfig, { minLength: SHELLCHECK_BATCH_SIZE, maxLength: SHELLCHECK_BATCH_SIZE }), (raws) => {
        expect(shellcheck(...raws.map(filesOf))).toEqual({ status: 0, output: '' });
      }),
      { numRuns: SHELLCHECK_BATCHES },
    );
  });

  it('random valid configs: units pass systemd-analyze verify', () => {
    fc.assert(
      fc.property(validRawConfig, (raw) => {
        expect(systemdVerify(filesOf(raw))).toEqual({ status: 0, output: '' });
      }),
      { numRuns: VERIFY_RUNS },
    );
  });

  it('the tools really catch problems (so the properties above can fail)', () => {
    const files = filesOf({}).map((f) => ({
      ...f,
      content: f.content.replace('set -eu\n', 'set -eu\necho "$undefined_variable"\n').replace('Restart=always', 'Restart=sometimes'),
    }));
    expect(shellcheck(files).status).not.toBe(0);
    expect(systemdVerify(files).output).toMatch(/Failed to parse service restart specifier/);
  });
});

describe('invalid configs', () => {
  it('random broken or injected configs are refused with named errors', () => {
    fc.assert(
      fc.property(invalidRawConfig, (raw) => {
        const c = decodeConfig(raw);
        expect(either.isLeft(c)).toBe(true);
        if (either.isLeft(c)) {
          expect(c.left.length).toBeGreaterThan(0);
          for (const e of c.left) {
            expect(e.field).not.toBe('');
            expect(e.rule).not.toBe('');
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
