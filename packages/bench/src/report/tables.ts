// The markdown `pnpm bench` prints and BENCHMARKS.md quotes (pure: report in, text out).
// Every comparison shows both figures and the ratio theirs / ours.
import type { ScaleResult } from '../measure/scale-run.js';
import { capoSection } from './capo-table.js';
import { fmtMiB, fmtNum, markdownTable, ratio } from './format.js';
import type { BenchReport } from './model.js';
import {
  bytesPerNodeTarget,
  capoPeakRssTarget,
  overlayShareTarget,
  peakRssTarget,
  remediationTarget,
  rssTarget,
  steadyRequestsTarget,
  steadyRssTarget,
  type TargetCheck,
} from './targets.js';

const ms = (n: number | undefined) => fmtNum(n, 'ms');

type Startup = ScaleResult['ours']['startup'];
/** A sync not done within the bench's limit is a lower bound (older reports lack the flag). */
const unfinished = (s: Startup) => s.completed === false;
const syncCpu = (s: Startup) =>
  unfinished(s) ? `> ${fmtNum(s.cpuSeconds, 's', 2)} (not done)` : fmtNum(s.cpuSeconds, 's', 2);
const syncTime = (s: Startup) =>
  unfinished(s) ? `not done within ${fmtNum(s.syncedMs, 'ms')}` : ms(s.syncedMs);
const atLeast = (theirs: Startup, r: string) => (unfinished(theirs) && r !== 'n/a' ? `≥ ${r}` : r);

function scaleRows(r: ScaleResult): string[][] {
  const n = fmtNum(r.nodes);
  const o = r.ours;
  const c = r.capi;
  const seen = (s: ScaleResult['ours']) =>
    s.remediation.missing > 0
      ? ` (${s.remediation.missing} of ${s.remediation.expected} never seen)`
      : '';
  return [
    [
      n,
      'resident memory, steady (RSS)',
      fmtMiB(o.rssBytes),
      fmtMiB(c.rssBytes),
      ratio(c.rssBytes, o.rssBytes),
    ],
    [
      n,
      'peak RSS (VmHWM)',
      fmtMiB(o.peakRssBytes),
      fmtMiB(c.peakRssBytes),
      ratio(c.peakRssBytes, o.peakRssBytes),
    ],
    [
      n,
      'CPU for the initial sync',
      syncCpu(o.startup),
      syncCpu(c.startup),
      atLeast(c.startup, ratio(c.startup.cpuSeconds, o.startup.cpuSeconds)),
    ],
    [
      n,
      'initial sync done after',
      syncTime(o.startup),
      syncTime(c.startup),
      atLeast(c.startup, ratio(c.startup.syncedMs, o.startup.syncedMs)),
    ],
    [
      n,
      'time to settle after start',
      ms(o.startup.settledMs),
      ms(c.startup.settledMs),
      ratio(c.startup.settledMs, o.startup.settledMs),
    ],
    [
      n,
      `remediation delay after the deadline, p50 (${r.failedNodes} nodes)`,
      ms(o.remediation.p50) + seen(o),
      ms(c.remediation.p50) + seen(c),
      ratio(c.remediation.p50, o.remediation.p50),
    ],
    [
      n,
      'remediation delay after the deadline, p99',
      ms(o.remediation.p99),
      ms(c.remediation.p99),
      ratio(c.remediation.p99, o.remediation.p99),
    ],
    ...(r.admissionFloor
      ? [
          [
            n,
            'the requests alone of starting them, both stopped (GET + Event; real run: + Lease, intent)',
            `${ms(r.admissionFloor.dryRunMs)}; real run ${ms(r.admissionFloor.realRunMs)}`,
            'not measured',
            '',
          ],
        ]
      : []),
    [
      n,
      'requests to kube-apiserver per minute, steady',
      fmtNum(o.requestsPerMinute, '', 1),
      fmtNum(c.requestsPerMinute, '', 1),
      ratio(c.requestsPerMinute, o.requestsPerMinute),
    ],
    [
      n,
      'CPU per minute, steady',
      fmtNum(o.steadyCpuSecondsPerMinute, 's', 2),
      fmtNum(c.steadyCpuSecondsPerMinute, 's', 2),
      ratio(c.steadyCpuSecondsPerMinute, o.steadyCpuSecondsPerMinute),
    ],
  ];
}

function informerSection(records: Record<string, unknown>[]): string {
  const rows = records.filter((r) => r['bench'] === 'informer');
  if (rows.length === 0) return '_not run_';
  const oursDefault = rows.find((r) => String(r['impl']).startsWith('noderepair-informer(default'));
  const base = oursDefault?.['retainedBytesPerNode'] as number | undefined;
  const baseSync = oursDefault?.['syncMs'] as number | undefined;
  return markdownTable(
    [
      'implementation',
      'nodes',
      'retained heap per Node',
      '÷ ours (default)',
      'initial list+sync',
      '÷ ours (default)',
    ],
    rows.map((r) => [
      String(r['impl']),
      fmtNum(r['nodes'] as number),
      fmtNum(r['retainedBytesPerNode'] as number, 'B'),
      ratio(r['retainedBytesPerNode'] as number, base),
      ms(r['syncMs'] as number),
      ratio(r['syncMs'] as number, baseSync),
    ]),
  );
}

function microSection(records: Record<string, unknown>[]): string {
  const rows: string[][] = [];
  for (const r of records) {
    if (r['bench'] === 'workqueue')
      rows.push([
        `work queue, ${fmtNum(r['keys'] as number)} keys`,
        fmtNum(r['opsPerSec'] as number, 'ops/s'),
        String(r['note']),
      ]);
    if (r['bench'] === 'health-decide')
      rows.push([
        'health state machine, decideRepair',
        fmtNum(r['evaluationsPerSec'] as number, 'evaluations/s'),
        String(r['note']),
      ]);
    if (r['bench'] === 'health-fleet')
      rows.push([
        `health state machine, ${String(r['fn'] ?? 'decideFleet')}`,
        `${fmtNum(r['evaluationsPerSec'] as number, 'evaluations/s')} (${fmtNum(r['msPerPass'] as number, 'ms', 1)} per pass)`,
        String(r['note']),
      ]);
  }
  return rows.length ? markdownTable(['what', 'throughput', 'workload'], rows) : '_not run_';
}

function overlaySection(report: BenchReport): string {
  const o = report.overlay;
  if (!o)
    return '_no recorded run of the overlayfs-gen VM test: run `pnpm --filter @noderepair/overlayfs-gen test:vm > packages/bench/recorded/overlayfs-gen-vm.log` (it boots a VM; pnpm bench does not)_';
  const cost =
    o.userspaceMsWithOverlay !== undefined && o.userspaceMsWithoutOverlay !== undefined
      ? o.userspaceMsWithOverlay - o.userspaceMsWithoutOverlay
      : undefined;
  return markdownTable(
    ['figure', 'value', 'source'],
    [
      [
        'overlay unit activation (noderepair-overlay.service)',
        ms(o.overlayUnitMs),
        `${o.source} (${o.recordedAt})`,
      ],
      [
        'CPU the overlay unit used (its cgroup: the script and its commands)',
        ms(o.overlayCpuMs),
        'same run',
      ],
      ['userspace boot without the overlay', ms(o.userspaceMsWithoutOverlay), 'same run'],
      ['userspace boot with the overlay', ms(o.userspaceMsWithOverlay), 'same run'],
      ['difference (boot-to-boot noise included)', ms(cost), 'same run'],
      [
        'overlay step, share of the userspace boot it ran in (target < 5 %)',
        o.overlaySharePct === undefined ? 'n/a' : `${fmtNum(o.overlaySharePct, '', 1)} %`,
        'same run',
      ],
      [
        'commands the overlay script started (execs in the kernel trace)',
        fmtNum(o.overlayExecs),
        'same run',
      ],
    ],
  );
}

export function targetChecks(report: BenchReport): TargetCheck[] {
  const largest = [...report.scale].sort((a, b) => b.nodes - a.nodes)[0];
  const checks: TargetCheck[] = [remediationTarget(largest)];
  const summary = report.informers.find((r) => r['bench'] === 'informer-summary');
  const per = summary?.['retainedBytesPerNode'] as Record<string, number> | undefined;
  checks.push(bytesPerNodeTarget('our informer, default transform', per?.['ours']));
  checks.push(bytesPerNodeTarget('our informer, projection', per?.['oursProjection']));
  for (const r of report.scale) checks.push(rssTarget(r));
  for (const r of report.scale) checks.push(steadyRequestsTarget(r));
  // Issue 24's targets.
  checks.push(steadyRssTarget(report.scale.find((r) => r.nodes === 1000)));
  for (const r of report.scale) checks.push(peakRssTarget(r));
  for (const r of report.capo ?? []) checks.push(capoPeakRssTarget(r));
  checks.push(overlayShareTarget(report.overlay));
  return checks;
}

export function renderReport(report: BenchReport): string {
  const scale = report.scale.length
    ? markdownTable(
        ['nodes', 'figure', 'noderepair (ours)', 'Cluster API manager (MHC)', 'theirs ÷ ours'],
        report.scale.flatMap(scaleRows),
      )
    : '_not run_';
  const targets = markdownTable(
    ['target (issues 10 and 24)', 'measured', 'met', 'miss'],
    targetChecks(report).map((t) => [
      t.target,
      t.measured,
      t.met === undefined ? 'n/a' : t.met ? 'yes' : 'NO',
      t.miss ?? '',
    ]),
  );
  const m = report.machine;
  return [
    `## noderepair benchmarks (${report.mode}, ${report.startedAt}, ${fmtNum(report.durationSeconds, 's')})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}; load average ${m.loadAverage.start} at start, ${m.loadAverage.end} at end. ` +
      `kube-apiserver ${report.versions.kubernetes ?? 'n/a'}, Cluster API ${report.versions.clusterAPI ?? 'n/a'}.`,
    '',
    '### 1. Scale: noderepair beside the Cluster API MachineHealthCheck',
    '',
    scale,
    '',
    '### 2. Informer memory per Node',
    '',
    informerSection(report.informers),
    '',
    '### 3. Work queue and health state machine',
    '',
    microSection(report.micro),
    '',
    '### 4. Overlay step at boot (recorded VM run)',
    '',
    overlaySection(report),
    '',
    '### 5. capo-remediation at scale (real Nova, real Cluster API manager)',
    '',
    // Older reports have no capo records.
    capoSection(report.capo ?? []),
    '',
    '### Targets',
    '',
    targets,
    ...(report.errors.length
      ? ['', '### Errors', '', ...report.errors.map((e) => `- ${e.split('\n')[0]}`)]
      : []),
    '',
  ].join('\n');
}
