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
    expect(o).toMatchObject({ capo: true, capoSizes: [50, 200], capoClusters: [1, 3] });
  });

  it('takes the capo points and --skip-capo', () => {
    expect(
      parseBenchArgs(['--capo-sizes', '10,20', '--capo-clusters', '2', '--skip-scale']),
    ).toMatchObject({ capo: true, capoSizes: [10, 20], capoClusters: [2], scale: false });
    expect(parseBenchArgs(['--skip-capo'])).toMatchObject({ capo: false });
    expect(() => parseBenchArgs(['--capo-sizes', '200,50'])).toThrow(
      /--capo-sizes: expected increasing numbers, got "200,50"/,
    );
    expect(() => parseBenchArgs(['--capo-clusters', '1,x'])).toThrow(
      /--capo-clusters: expected a positive whole number, got "x"/,
    );
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
