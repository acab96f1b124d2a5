// Go's time.ParseDuration / time.Duration.String() and Cluster API's ConvertToSeconds, on the
// values Go itself gives (checked with `go run` against time.ParseDuration(...).String()).
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { goDuration, parseGoDurationNs, truncateToSeconds } from './duration.js';

const ns = (s: string) => {
  const r = parseGoDurationNs(s);
  if (either.isLeft(r)) throw new Error(r.left);
  return r.right;
};

describe('Go durations', () => {
  it('parses what time.ParseDuration parses', () => {
    const rows: Array<[string, bigint]> = [
      ['0', 0n],
      ['300s', 300_000_000_000n],
      ['5m0s', 300_000_000_000n],
      ['1h30m', 5_400_000_000_000n],
      ['1.5h', 5_400_000_000_000n],
      ['.5s', 500_000_000n],
      ['5.s', 5_000_000_000n],
      ['+2m', 120_000_000_000n],
      ['-1.5s', -1_500_000_000n],
      ['250ms', 250_000_000n],
      ['10us', 10_000n],
      ['10µs', 10_000n],
      ['10μs', 10_000n],
      ['7ns', 7n],
      ['1h1m1s1ms1us1ns', 3_661_001_001_001n],
      ['0.0000000019s', 1n], // the fraction truncates to whole nanoseconds
    ];
    for (const [text, want] of rows) expect(ns(text), text).toBe(want);
  });

  it('refuses what time.ParseDuration refuses', () => {
    for (const text of [
      '',
      '300',
      '5',
      '.s',
      's',
      '1d',
      '1h 30m',
      '- 1s',
      '1e3s',
      '+',
      '9999999999h',
    ])
      expect(either.isLeft(parseGoDurationNs(text)), text).toBe(true);
  });

  it('ConvertToSeconds truncates toward zero and caps at int32', () => {
    expect(truncateToSeconds(ns('5.9s'))).toBe(5);
    expect(truncateToSeconds(ns('999ms'))).toBe(0);
    expect(truncateToSeconds(ns('-1.5s'))).toBe(-1);
    expect(truncateToSeconds(ns('2562047h'))).toBe(2 ** 31 - 1);
  });

  it('prints like time.Duration.String()', () => {
    const rows: Array<[number, string]> = [
      [0, '0s'],
      [500, '500ms'],
      [1_000, '1s'],
      [1_500, '1.5s'],
      [5_000, '5s'],
      [60_000, '1m0s'],
      [90_000, '1m30s'],
      [300_000, '5m0s'],
      [600_000, '10m0s'],
      [3_600_000, '1h0m0s'],
      [3_661_000, '1h1m1s'],
      [90_061_250, '25h1m1.25s'],
      [-90_000, '-1m30s'],
    ];
    for (const [ms, want] of rows) expect(goDuration(ms), String(ms)).toBe(want);
  });
});
