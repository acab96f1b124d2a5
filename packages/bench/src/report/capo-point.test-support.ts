// A capo-remediation bench point for the report's tests: N remediations over W clusters,
// our controller at capoMiB (peak 5 MiB more), Cluster API's at 100 + 8 per cluster (peak 200).
import type { CapoResult } from '../capo/figures.js';
import { MiB } from './format.js';

export const point = (
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
