import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';

describe('parseBenchArgs', () => {
  it('defaults to the full run of the issue', () => {
    const o = parseBenchArgs([]);
    expect(o).toMatchObject({
      mode: 'full',
      sizes: [1000, 5000, 10000],
      steadySeconds: 30,
      timeoutSeconds: 20,
      capiSyncLimitSeconds: 150,
    });
    expect(o).toMatchObject({
      heartbeatSeconds: 300,
      out: 'reports/bench.json',
      scale: true,
      informers: true,
      micro: true,
    });
  });

  it('--quick is one small scale point; a lone -- is ignored', () => {
    expect(parseBenchArgs(['--', '--quick'])).toMatchObject({
      mode: 'quick',
      sizes: [1000],
      steadySeconds: 30,
    });
  });

  it('takes custom sizes and switches', () => {
    const o = parseBenchArgs(['--sizes', '200,1000', '--skip-informers', '--steady-seconds', '20']);
    expect(o).toMatchObject({
      mode: 'custom',
      sizes: [200, 1000],
      informers: false,
      steadySeconds: 20,
    });
  });

  it('refuses bad input naming the flag', () => {
    expect(() => parseBenchArgs(['--sizes', '1000,abc'])).toThrow(
      /--sizes: expected a positive whole number, got "abc"/,
    );
    expect(() => parseBenchArgs(['--sizes', '5000,1000'])).toThrow(
      /--sizes: expected increasing node counts/,
    );
    expect(() => parseBenchArgs(['--timeout-seconds', '0'])).toThrow(
      /--timeout-seconds: expected a positive whole number, got "0"/,
    );
    expect(() => parseBenchArgs(['--fast'])).toThrow(
      /Unknown option '--fast'[\s\S]*usage: pnpm bench/,
    );
  });
});
