// Section 5 of the report: capo-remediation at scale (pure). Per point, our controller beside
// what the Cluster API manager spent over the same window (the ratio is theirs / ours), then
// the memory each extra workload cluster costs (slope of RSS over W at one N).
import { memoryPerCluster, type CapoResult } from '../capo/figures.js';
import { fmtMiB, fmtNum, markdownTable, ratio } from './format.js';

const ms = (n: number | undefined) => fmtNum(n, 'ms');
const d1 = (n: number) => fmtNum(n, '', 1);

function pointRows(r: CapoResult): string[][] {
  const at = `${fmtNum(r.remediations)} × ${r.clusters}`;
  const q = r.perRemediation;
  const missing =
    r.accepted < r.remediations
      ? ` (${r.remediations - r.accepted} of ${r.remediations} not accepted)`
      : '';
  const nova = `${r.nova.rebooted}/${r.nova.servers} servers rebooted, ${r.nova.rebootedTwice} twice`;
  return [
    [
      at,
      'MHC: Ready=False deadline → remediation seen, p50 / p99',
      `${ms(r.mhcMs.p50)} / ${ms(r.mhcMs.p99)}`,
      '',
      '',
    ],
    [
      at,
      'remediation seen → Nova accepted the HARD reboot, p50 / p99 / max',
      `${ms(r.acceptMs.p50)} / ${ms(r.acceptMs.p99)} / ${ms(r.acceptMs.max)}${missing}`,
      '',
      '',
    ],
    [at, "Nova's os-instance-actions", nova, '', ''],
    [at, 'Keystone tokens (POST /v3/auth/tokens) per remediation', d1(q.keystoneTokens), '', ''],
    [at, 'Keystone / Nova requests per remediation', `${d1(q.keystone)} / ${d1(q.nova)}`, '', ''],
    [
      at,
      'management kube-apiserver requests per remediation',
      d1(q.managementCapo),
      d1(q.managementCapi),
      ratio(q.managementCapi, q.managementCapo),
    ],
    [
      at,
      'workload kube-apiservers requests per remediation',
      d1(q.workloadCapo),
      d1(q.workloadCapi),
      ratio(q.workloadCapi, q.workloadCapo),
    ],
    [
      at,
      'largest RSS over the window (sampled 1/s)',
      fmtMiB(r.rss.capo.maxRssBytes),
      fmtMiB(r.rss.capi.maxRssBytes),
      ratio(r.rss.capi.maxRssBytes, r.rss.capo.maxRssBytes),
    ],
    [
      at,
      'peak RSS (VmHWM)',
      fmtMiB(r.rss.capo.peakRssBytes),
      fmtMiB(r.rss.capi.peakRssBytes),
      ratio(r.rss.capi.peakRssBytes, r.rss.capo.peakRssBytes),
    ],
  ];
}

export function capoSection(results: readonly CapoResult[]): string {
  if (results.length === 0) return '_not run_';
  const points = markdownTable(
    [
      'remediations × workload clusters',
      'figure',
      'capo-remediation',
      'Cluster API manager',
      'ratio',
    ],
    results.flatMap(pointRows),
  );
  const slopes = memoryPerCluster(results);
  const perCluster = slopes.length
    ? markdownTable(
        ['remediations', 'RSS per workload cluster: capo-remediation', 'Cluster API manager'],
        slopes.map((s) => [fmtNum(s.remediations), fmtMiB(s.capoBytes), fmtMiB(s.capiBytes)]),
      )
    : '_memory per workload cluster needs two cluster counts at one size_';
  const windows = results
    .map((r) => `${r.remediations} × ${r.clusters}: ${fmtNum(r.windowSeconds, 's', 1)}`)
    .join('; ');
  return [
    points,
    '',
    perCluster,
    '',
    `Measurement windows (Ready=False → last acceptance): ${windows}.`,
  ].join('\n');
}
