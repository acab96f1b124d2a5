// The pure arithmetic of a capo scale point: request counts from the proxies' and the
// apiserver's counters, reboots from Nova's os-instance-actions, and memory per workload
// cluster as the slope of RSS over the number of clusters.
import type { Summary } from '../stats/percentile.js';

export interface CapoRequests {
  /** POST /v3/auth/tokens: the tokens our controller asked Keystone for. */
  keystoneTokens: number;
  keystone: number;
  nova: number;
  /** Management kube-apiserver (APF dispatched, by FlowSchema). */
  managementCapo: number;
  managementCapi: number;
  /** Every workload kube-apiserver together (the proxies, by User-Agent). */
  workloadCapo: number;
  workloadCapi: number;
}

export interface CapoResult {
  remediations: number;
  clusters: number;
  timeoutSeconds: number;
  /** OpenStackRemediations the MachineHealthChecks created (seen by watch). */
  created: number;
  /** ... whose HardReboot Nova accepted (status.history acceptedTime, seen by watch). */
  accepted: number;
  /** From the Ready=False deadline (timeout passed) to the remediation first seen. */
  mhcMs: Summary;
  /** From the remediation first seen to its acceptedTime first seen. */
  acceptMs: Summary;
  /** Nova's own record: servers with a reboot action since the Nodes failed. */
  nova: { servers: number; rebooted: number; rebootedTwice: number };
  windowSeconds: number;
  requests: CapoRequests;
  /** requests / remediations, one decimal. */
  perRemediation: CapoRequests;
  /** Nova requests by method and path (ids folded), for "no polling storm". */
  novaByPath: Record<string, number>;
  /** Sampled every second over the window: the largest VmRSS, and VmHWM at the end. */
  rss: {
    capo: { maxRssBytes: number; peakRssBytes: number };
    capi: { maxRssBytes: number; peakRssBytes: number };
  };
}

/** Worker i's workload cluster: round robin, so each has N/W (± 1) workers. Pure. */
export const clusterOf = (i: number, clusters: number): number => i % clusters;

export const TOKENS_KEY = 'POST /v3/auth/tokens';

export const total = (m: ReadonlyMap<string, number>, keep: (k: string) => boolean = () => true) =>
  [...m].reduce((s, [k, v]) => (keep(k) ? s + v : s), 0);

export function perRemediation(r: CapoRequests, n: number): CapoRequests {
  const d = (v: number) => (n > 0 ? Math.round((v / n) * 10) / 10 : 0);
  return {
    keystoneTokens: d(r.keystoneTokens),
    keystone: d(r.keystone),
    nova: d(r.nova),
    managementCapo: d(r.managementCapo),
    managementCapi: d(r.managementCapi),
    workloadCapo: d(r.workloadCapo),
    workloadCapi: d(r.workloadCapi),
  };
}

/**
 * Nova's start_time of an instance action ("2026-12-05T22:31:06.000000", UTC without a zone,
 * or with "Z") in ms. Pure.
 */
export function novaTime(s: string): number {
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  if (!Number.isFinite(t)) throw new Error(`Nova start_time "${s}" is not a date`);
  return t;
}

/** Reboot actions Nova recorded from `sinceMs` on (second precision: a second of slack). Pure. */
export function rebootsSince(
  actions: ReadonlyArray<{ action: string; startTime: string }>,
  sinceMs: number,
): number {
  return actions.filter((a) => a.action === 'reboot' && novaTime(a.startTime) >= sinceMs - 1_000)
    .length;
}

/**
 * Least-squares slope of y over x (bytes per workload cluster when x is the number of
 * clusters at one N); undefined with fewer than two distinct x. Pure.
 */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number | undefined {
  if (new Set(points.map((p) => p.x)).size < 2) return undefined;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

/** Per remediation count N, the RSS slope over W for capo and capi (pure). */
export function memoryPerCluster(
  results: readonly CapoResult[],
): Array<{ remediations: number; capoBytes?: number; capiBytes?: number }> {
  const sizes = [...new Set(results.map((r) => r.remediations))].sort((a, b) => a - b);
  return sizes.flatMap((n) => {
    const at = results.filter((r) => r.remediations === n);
    const capo = slope(at.map((r) => ({ x: r.clusters, y: r.rss.capo.maxRssBytes })));
    const capi = slope(at.map((r) => ({ x: r.clusters, y: r.rss.capi.maxRssBytes })));
    if (capo === undefined && capi === undefined) return [];
    return [
      {
        remediations: n,
        ...(capo !== undefined ? { capoBytes: capo } : {}),
        ...(capi !== undefined ? { capiBytes: capi } : {}),
      },
    ];
  });
}
