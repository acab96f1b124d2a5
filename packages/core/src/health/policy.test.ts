import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { defaultRepairPolicy, resolveRepairPolicy, scaleCountOrPercent } from './policy.js';
import { parseDuration, formatDuration } from './time.js';

const right = <A>(e: either.Either<string, A>): A => {
  if (either.isLeft(e)) throw new Error(e.left);
  return e.right;
};
const left = (e: either.Either<string, unknown>): string => {
  if (either.isRight(e)) throw new Error('expected an error');
  return e.left;
};

describe('repair policy', () => {
  it('an empty policy is the documented default', () => {
    expect(right(resolveRepairPolicy({}))).toEqual(defaultRepairPolicy);
    expect(defaultRepairPolicy.unhealthyConditions).toEqual([
      { type: 'Ready', status: 'False', timeoutMs: 600_000 },
      { type: 'Ready', status: 'Unknown', timeoutMs: 600_000 },
    ]);
  });

  it('parses durations as text or seconds and fills step defaults', () => {
    const p = right(
      resolveRepairPolicy({
        unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '90s' }],
        nodeStartupTimeout: 0,
        ladder: [{ action: 'HardReboot', timeout: '1h30m', attempts: 3 }, { action: 'Replace' }],
        stormGuard: {
          maxUnhealthy: '25%',
          failureDomainLabel: 'topology.kubernetes.io/zone',
          maxUnhealthyPerDomain: 1,
        },
        flap: { episodes: 4, window: 7200 },
      }),
    );
    expect(p.unhealthyConditions).toEqual([
      { type: 'Ready', status: 'Unknown', timeoutMs: 90_000 },
    ]);
    expect(p.nodeStartupTimeoutMs).toBe(0);
    expect(p.ladder).toEqual([
      { action: 'HardReboot', timeoutMs: 5_400_000, attempts: 3 },
      { action: 'Replace', timeoutMs: 600_000, attempts: 1 },
    ]);
    expect(p.stormGuard.maxUnhealthy).toEqual({ percent: 25 });
    expect(p.stormGuard.maxUnhealthyPerDomain).toEqual({ count: 1 });
    expect(p.flap).toEqual({
      episodes: 4,
      windowMs: 7_200_000,
      escalateWithinMs: 3_600_000,
      settleMs: 2_000,
    });
  });

  it('names the field and what was expected on bad input', () => {
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'Reimage' }] }))).toMatch(
      /ladder\[0\]\.action: expected one of SoftReboot, HardReboot, Rebuild, Replace, Command, Webhook, got "Reimage"/,
    );
    expect(left(resolveRepairPolicy({ minHealthyPeriod: '5 minutes' }))).toMatch(
      /minHealthyPeriod: expected a duration/,
    );
    expect(left(resolveRepairPolicy({ ladder: [] }))).toMatch(/ladder: expected at least one step/);
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'Replace' }, { action: 'SoftReboot' }] })),
    ).toMatch(/Replace must be the last step/);
    expect(left(resolveRepairPolicy({ stormGuard: { maxUnhealthy: '140%' } }))).toMatch(
      /stormGuard.maxUnhealthy: a percentage must be at most 100%/,
    );
    expect(left(resolveRepairPolicy({ nodeStartupTimeout: '10s' }))).toMatch(/at least 30s/);
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'SoftReboot', attempts: 0 }] }))).toMatch(
      /ladder\[0\]\.attempts: expected an integer >= 1/,
    );
    expect(left(resolveRepairPolicy({ stormGuard: { maxUnhealthyPerDomain: 1 } }))).toMatch(
      /needs stormGuard.failureDomainLabel/,
    );
  });

  // attempts counts every try, capo-remediation's retries only the further ones (issue 47): an
  // error about a bad value says which, whether the value is out of range or not a number.
  it('an error about attempts says what it counts, and that capo-remediation counts retries', () => {
    const meaning =
      "an integer >= 1, the tries of this step in all, the first included (attempts: 3 tries it 3 times; capo-remediation's steps[].retries counts only the further tries)";
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'SoftReboot', attempts: 0 }] }))).toBe(
      `invalid repair policy: ladder[0].attempts: expected ${meaning}, got 0`,
    );
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'SoftReboot', attempts: '3' }] }))).toBe(
      `invalid repair policy: ladder[0].attempts: expected ${meaning}, got "3"`,
    );
    expect(
      left(
        resolveRepairPolicy({
          unhealthyConditions: [
            { type: 'Ready', status: 'False', ladder: [{ action: 'HardReboot', attempts: 1.5 }] },
          ],
        }),
      ),
    ).toBe(
      `invalid repair policy: unhealthyConditions[0].ladder[0].attempts: expected ${meaning}, got 1.5`,
    );
  });

  it('percentages round down', () => {
    expect(scaleCountOrPercent({ percent: 40 }, 7)).toBe(2);
    expect(scaleCountOrPercent({ percent: 40 }, 2)).toBe(0);
    expect(scaleCountOrPercent({ count: 3 }, 2)).toBe(3);
  });

  it('durations round-trip through text', () => {
    for (const ms of [0, 1000, 90_000, 600_000, 5_400_000, 3_600_000]) {
      expect(right(parseDuration(formatDuration(ms)))).toBe(ms);
    }
    expect(right(parseDuration('250ms'))).toBe(250);
    expect(either.isLeft(parseDuration('10 m'))).toBe(true);
    expect(either.isLeft(parseDuration(-1))).toBe(true);
  });

  it('a Rebuild step needs an image, other steps take none, and no action appears twice', () => {
    expect(
      right(
        resolveRepairPolicy({
          ladder: [{ action: 'SoftReboot' }, { action: 'Rebuild', image: 'img-1', timeout: '20m' }],
        }),
      ).ladder,
    ).toEqual([
      { action: 'SoftReboot', timeoutMs: 600_000, attempts: 1 },
      { action: 'Rebuild', timeoutMs: 1_200_000, attempts: 1, image: 'img-1' },
    ]);
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'Rebuild' }] }))).toContain(
      'ladder[0].image: Rebuild needs the image to rebuild from',
    );
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'HardReboot', image: 'img-1' }] })),
    ).toContain('ladder[0].image: only a Rebuild step takes an image, not HardReboot');
    expect(
      left(resolveRepairPolicy({ ladder: [{ action: 'HardReboot' }, { action: 'HardReboot' }] })),
    ).toContain('ladder[1].action: HardReboot is already step 1; use attempts to repeat a step');
    expect(left(resolveRepairPolicy({ ladder: [{ action: 'Rebuild', image: 3 }] }))).toMatch(
      /image/,
    );
  });
});
