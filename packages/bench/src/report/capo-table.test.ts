import { describe, expect, it } from 'vitest';
import type { CapoResult } from '../capo/figures.js';
import { MiB } from './format.js';
import { capoSection } from './capo-table.js';

const point = (
  remediations: number,
  clusters: number,
  capoMiB: number,
  accepted = remediations,
): CapoResult => ({
  remediations,
  clusters,
  timeoutSeconds: 20,
  created: remediations,
  accepted,
  mhcMs: { count: remediations, p50: 800, p99: 1500, max: 1500 },
  acceptMs: { count: accepted, p50: 1200, p99: 4000, max: 4100 },
  nova: { servers: remediations, rebooted: accepted, rebootedTwice: 0 },
  windowSeconds: 30.5,
  requests: {
    keystoneTokens: 1,
    keystone: 1,
    nova: 40,
    managementCapo: 100,
    managementCapi: 300,
    workloadCapo: 20,
    workloadCapi: 60,
  },
  perRemediation: {
    keystoneTokens: 0.1,
    keystone: 0.1,
    nova: 4,
    managementCapo: 10,
    managementCapi: 30,
    workloadCapo: 2,
    workloadCapi: 6,
  },
  novaByPath: { 'POST /v2.1/servers/:id/action': remediations },
  rss: {
    capo: { maxRssBytes: capoMiB * MiB, peakRssBytes: (capoMiB + 5) * MiB },
    capi: { maxRssBytes: 100 * MiB + clusters * 8 * MiB, peakRssBytes: 200 * MiB },
  },
});

describe('capoSection', () => {
  it('says when nothing ran', () => {
    expect(capoSection([])).toBe('_not run_');
  });

  it('shows each point beside Cluster API with the ratio, and the per-cluster memory slope', () => {
    const text = capoSection([point(50, 1, 80), point(50, 3, 86)]);
    expect(text).toContain(
      '| 50 × 1 | remediation seen → Nova accepted the HARD reboot, p50 / p99 / max | 1,200 ms / 4,000 ms / 4,100 ms |',
    );
    expect(text).toContain(
      '| 50 × 3 | management kube-apiserver requests per remediation | 10.0 | 30.0 | 3.0× |',
    );
    expect(text).toContain(
      "| 50 × 1 | Nova's os-instance-actions | 50/50 servers rebooted, 0 twice |",
    );
    // (86 - 80) MiB over 2 more clusters; Cluster API 8 MiB each.
    expect(text).toContain('| 50 | 3.0 MiB | 8.0 MiB |');
    expect(text).toContain('50 × 3: 30.5 s');
  });

  it('names the remediations Nova never accepted, and needs two cluster counts for a slope', () => {
    const text = capoSection([point(10, 1, 70, 7)]);
    expect(text).toContain('(3 of 10 not accepted)');
    expect(text).toContain('needs two cluster counts at one size');
  });
});
