import { describe, expect, it } from 'vitest';
import { parseSpanMs, parseStartup } from './systemd-time.js';

describe('systemd time spans', () => {
  it.each([
    ['46.435s', 46435],
    ['1min 1.135s', 61135],
    ['850ms', 850],
    ['2h 3min', 7_380_000],
    ['120us', 0],
  ])('%s -> %d ms', (s, ms) => {
    expect(parseSpanMs(s)).toBe(ms);
  });

  it('rejects text that is not a span', () => {
    expect(() => parseSpanMs('soon')).toThrow(/not a systemd time span/);
  });

  it('parses systemd-analyze time', () => {
    expect(parseStartup('Startup finished in 58.311s (kernel) + 2min 29.106s (userspace) = 3min 27.418s \ngraphical.target reached')).toEqual({
      kernelMs: 58311,
      userspaceMs: 149106,
    });
  });
});
