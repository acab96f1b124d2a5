import { describe, expect, it } from 'vitest';
import { fmtMiB, fmtNum, markdownTable, ratio } from './format.js';

describe('format', () => {
  it('formats bytes as MiB and numbers with thousands separators', () => {
    expect(fmtMiB(52_428_800)).toBe('50.0 MiB');
    expect(fmtMiB(undefined)).toBe('n/a');
    expect(fmtNum(12345.678, 'ms')).toBe('12,346 ms');
    expect(fmtNum(1.234, 's', 2)).toBe('1.23 s');
    expect(fmtNum(Number.NaN)).toBe('n/a');
  });

  it('gives theirs/ours ratios and refuses meaningless ones', () => {
    expect(ratio(300, 100)).toBe('3.0×');
    expect(ratio(1500, 100)).toBe('15×');
    expect(ratio(50, 100)).toBe('0.50×');
    expect(ratio(1000, 0)).toBe('ours ≤ 0');
    expect(ratio(0, 0)).toBe('n/a');
    expect(ratio(undefined, 5)).toBe('n/a');
  });

  it('builds a markdown table and escapes pipes', () => {
    expect(markdownTable(['a', 'b'], [['1', 'x|y']])).toBe(
      '| a | b |\n| --- | --- |\n| 1 | x\\|y |',
    );
  });

  it('names the row whose width is wrong', () => {
    expect(() => markdownTable(['a', 'b'], [['1', '2'], ['3']])).toThrow(
      /row 1 has 1 cells, the header has 2/,
    );
  });
});
