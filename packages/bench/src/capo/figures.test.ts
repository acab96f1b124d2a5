import { describe, expect, it } from 'vitest';
import {
  clusterOf,
  memoryPerCluster,
  novaTime,
  perRemediation,
  rebootsSince,
  slope,
  total,
} from './figures.js';
import { CAPO_PARTY, methodAndPrefix, partyOfUserAgent } from './proxy.js';

describe('capo figures', () => {
  it('folds server ids out of Nova paths and keeps the method', () => {
    expect(
      methodAndPrefix('POST', '/v2.1/servers/0f1e2d3c-4b5a-4978-8a9b-0c1d2e3f4a5b/action'),
    ).toBe('POST /v2.1/servers/:id/action');
    expect(methodAndPrefix('GET', '/v2.1/servers/detail?name=x')).toBe('GET /v2.1/servers/detail');
    expect(methodAndPrefix('POST', '/v3/auth/tokens')).toBe('POST /v3/auth/tokens');
    expect(
      methodAndPrefix(
        'GET',
        '/v2.1/servers/0f1e2d3c-4b5a-4978-8a9b-0c1d2e3f4a5b/os-instance-actions/req-c9eac1a3-d320-42a2-b567-4a7ee71b73d5',
      ),
    ).toBe('GET /v2.1/servers/:id/os-instance-actions/:request');
  });

  it('tells our controller (no User-Agent) from client-go', () => {
    expect(partyOfUserAgent('')).toBe(CAPO_PARTY);
    expect(partyOfUserAgent('cluster-api-controller-manager/v1.13.6 (linux/amd64)')).toBe(
      'capi (cluster-api-controller-manager)',
    );
  });

  it('spreads workers round robin over the clusters', () => {
    expect([0, 1, 2, 3, 4].map((i) => clusterOf(i, 2))).toEqual([0, 1, 0, 1, 0]);
  });

  it('divides per remediation to one decimal, and sums by key', () => {
    const r = {
      keystoneTokens: 1,
      keystone: 3,
      nova: 41,
      managementCapo: 7,
      managementCapi: 0,
      workloadCapo: 2,
      workloadCapi: 9,
    };
    expect(perRemediation(r, 10)).toEqual({
      ...r,
      keystoneTokens: 0.1,
      keystone: 0.3,
      nova: 4.1,
      managementCapo: 0.7,
      workloadCapo: 0.2,
      workloadCapi: 0.9,
    });
    expect(
      total(
        new Map([
          ['a', 2],
          ['b', 3],
        ]),
        (k) => k !== 'a',
      ),
    ).toBe(3);
  });

  it("reads Nova's zone-less times as UTC and counts reboots since the failure", () => {
    expect(novaTime('2026-12-05T22:31:06.000000')).toBe(Date.parse('2026-12-05T22:31:06Z'));
    const since = Date.parse('2026-12-05T22:31:06Z');
    const actions = [
      { action: 'create', startTime: '2026-12-05T22:00:00.000000' },
      { action: 'reboot', startTime: '2026-12-05T22:10:00.000000' }, // an earlier point's
      { action: 'reboot', startTime: '2026-12-05T22:31:05.000000' }, // within the second of slack
      { action: 'reboot', startTime: '2026-12-05T22:31:09.000000' },
    ];
    expect(rebootsSince(actions, since)).toBe(2);
    expect(() => novaTime('yesterday')).toThrow(/"yesterday" is not a date/);
  });

  it('takes the least-squares slope of RSS over the cluster count', () => {
    expect(
      slope([
        { x: 1, y: 10 },
        { x: 3, y: 16 },
        { x: 5, y: 22 },
      ]),
    ).toBe(3);
    expect(
      slope([
        { x: 1, y: 10 },
        { x: 1, y: 12 },
      ]),
    ).toBeUndefined();
    const r = (n: number, w: number, capo: number) =>
      ({
        remediations: n,
        clusters: w,
        rss: {
          capo: { maxRssBytes: capo, peakRssBytes: 0 },
          capi: { maxRssBytes: 2 * capo, peakRssBytes: 0 },
        },
      }) as never;
    expect(memoryPerCluster([r(50, 1, 100), r(50, 3, 140), r(200, 1, 300)])).toEqual([
      { remediations: 50, capoBytes: 20, capiBytes: 40 },
    ]);
  });
});
