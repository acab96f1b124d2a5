import { describe, expect, it } from 'vitest';
import type { ScaleResult, SideResult } from '../measure/scale-run.js';
import { point } from './capo-point.test-support.js';
import type { BenchReport } from './model.js';
import { renderReport, targetChecks } from './tables.js';

const side = (rssMiB: number, p99: number, reqPerMin: number, missing = 0): SideResult => ({
  startup: { completed: true, cpuSeconds: 2, syncedMs: 4000, rssBytesAtSync: rssMiB * 1048576 },
  rssBytes: rssMiB * 1048576,
  peakRssBytes: rssMiB * 2 * 1048576,
  steadyCpuSecondsPerMinute: 0.5,
  requestsPerMinute: reqPerMin,
  remediation: {
    count: 100 - missing,
    min: 1,
    p50: p99 / 2,
    p99,
    max: p99,
    expected: 100,
    missing,
  },
});

const scale = (nodes: number, ours: SideResult, capi: SideResult): ScaleResult => ({
  nodes,
  failedNodes: nodes / 100,
  timeoutSeconds: 20,
  heartbeatsPerSecond: nodes / 300,
  writerRequestsPerMinute: nodes / 5,
  ours,
  capi,
  capiMarked: { count: 100, p50: 900, p99: 1000, expected: 100, missing: 0 },
  delaysMs: { ours: [], capi: [], capiMarked: [] },
});

const report = (s: ScaleResult[], informers: Record<string, unknown>[] = []): BenchReport => ({
  startedAt: '2026-12-02T17:00:00.000Z',
  finishedAt: '2026-12-02T17:25:00.000Z',
  durationSeconds: 1500,
  mode: 'full',
  machine: {
    cpus: 2,
    cpuModel: 'Test CPU',
    memoryGiB: 8,
    kernel: '6.1',
    node: 'v20.19.0',
    loadAverage: { start: 1, end: 2 },
  },
  versions: { kubernetes: 'v1.35.4', clusterAPI: 'v1.13.6' },
  scale: s,
  informers,
  micro: [{ bench: 'workqueue', keys: 1000, opsPerSec: 2_000_000, note: 'n' }],
  overlay: undefined,
  capo: [],
  errors: [],
});

describe('renderReport', () => {
  it('puts both figures and theirs ÷ ours in each scale row', () => {
    const md = renderReport(report([scale(10_000, side(50, 30, 0), side(200, 1040, 12))]));
    expect(md).toContain(
      '| 10,000 | resident memory, steady (RSS) | 50.0 MiB | 200.0 MiB | 4.0× |',
    );
    expect(md).toContain(
      '| 10,000 | remediation delay after the deadline, p99 | 30 ms | 1,040 ms | 35× |',
    );
    expect(md).toContain('| work queue, 1,000 keys | 2,000,000 ops/s | n |');
    expect(md).toContain('_no recorded run of the overlayfs-gen VM test');
  });

  it('shows the overlay step as a share of the boot and the commands it started', () => {
    const r = report([]);
    r.overlay = {
      source: 'log',
      recordedAt: 't',
      overlayUnitMs: 700,
      userspaceMsWithoutOverlay: 17_000,
      userspaceMsWithOverlay: 17_500,
      overlaySharePct: 4,
      overlayExecs: 4,
      overlayCpuMs: 350,
    };
    const md = renderReport(r);
    expect(md).toContain('| CPU the overlay unit used (its cgroup: the script and its commands) | 350 ms | same run |');
    expect(md).toContain('| overlay step, share of the userspace boot it ran in (target < 5 %) | 4.0 % | same run |');
    expect(md).toContain('| commands the overlay script started (execs in the kernel trace) | 4 | same run |');
  });

  it('shows a sync not done within the limit as a lower bound, and its ratio as at least', () => {
    const capi = side(200, 1040, 12);
    capi.startup = { completed: false, cpuSeconds: 90, syncedMs: 240_000, rssBytesAtSync: 1 };
    const md = renderReport(report([scale(5000, side(50, 30, 0), capi)]));
    expect(md).toContain(
      '| 5,000 | CPU for the initial sync | 2.00 s | > 90.00 s (not done) | ≥ 45× |',
    );
    expect(md).toContain(
      '| 5,000 | initial sync done after | 4,000 ms | not done within 240,000 ms | ≥ 60× |',
    );
  });

  it('shows the admission floor beside the burst figures and in the burst target', () => {
    const s = scale(10_000, side(50, 840, 0), side(200, 11_710, 12));
    s.admissionFloor = {
      members: 100,
      dryRunMs: 180,
      realRunMs: 320,
      rounds: [{ dryRunMs: 180, realRunMs: 320 }],
    };
    const md = renderReport(report([s]));
    expect(md).toContain(
      '| 10,000 | the requests alone of starting them, both stopped (GET + Event; real run: + Lease, intent) | 180 ms; real run 320 ms | not measured |  |',
    );
    expect(targetChecks(report([s]))[0]).toMatchObject({
      measured: 'p99 840 ms at 10,000 nodes; the requests alone: 180 ms (a real run\'s: 320 ms)',
      miss: '790 ms over',
    });
  });

  it('says when remediations were never seen', () => {
    const md = renderReport(report([scale(1000, side(50, 30, 0, 3), side(200, 1040, 12))]));
    expect(md).toContain('(3 of 100 never seen)');
  });
});

describe('targetChecks', () => {
  it('reports met targets and the margin of missed ones, at the largest scale', () => {
    const r = report(
      [
        scale(1000, side(40, 20, 0), side(100, 1000, 5)),
        scale(10_000, side(300, 80, 40), side(250, 1100, 12)),
      ],
      [{ bench: 'informer-summary', retainedBytesPerNode: { ours: 3000, oursProjection: 600 } }],
    );
    const checks = targetChecks(r);
    const byStart = (s: string) => checks.filter((c) => c.target.startsWith(s));
    expect(byStart('remediation')[0]).toMatchObject({
      met: false,
      miss: '30 ms over',
      measured: 'p99 80 ms at 10,000 nodes',
    });
    expect(byStart('at most 1 KiB')[0]).toMatchObject({ met: false, measured: '3000 B/node' });
    expect(byStart('at most 1 KiB')[1]).toMatchObject({ met: true, measured: '600 B/node' });
    expect(byStart('resident memory').map((c) => c.met)).toEqual([true, false]);
    expect(byStart('resident memory')[1]?.miss).toBe('50.0 MiB above');
    expect(byStart('no steady-state').map((c) => c.met)).toEqual([true, false]);
  });

  it("checks issue 24's targets: steady RSS at 1,000 nodes, peak RSS on both paths, the overlay share", () => {
    const r = {
      ...report([
        scale(1000, side(79, 20, 0), side(100, 1000, 5)),
        scale(10_000, side(300, 80, 40), side(250, 1100, 12)),
      ]),
      capo: [point(50, 1, 190), point(200, 3, 150)],
      overlay: { source: 'vm', recordedAt: 'x', overlaySharePct: 18.5, overlayExecs: 5 },
    };
    const checks = targetChecks(r);
    const byStart = (s: string) => checks.filter((c) => c.target.startsWith(s));
    expect(byStart('steady resident memory under 80 MiB')).toEqual([
      expect.objectContaining({ met: true, measured: '79.0 MiB' }),
    ]);
    // side(): peak is twice the steady figure.
    expect(byStart('peak resident memory').map((c) => [c.met, c.miss])).toEqual([
      [true, undefined],
      [false, '100.0 MiB above'],
    ]);
    // point(): capo's peak is capoMiB + 5, Cluster API's 200 MiB.
    expect(byStart('capo-remediation peak').map((c) => [c.target, c.met])).toEqual([
      [expect.stringContaining('(50 × 1)'), true],
      [expect.stringContaining('(200 × 3)'), true],
    ]);
    expect(byStart('capo-remediation peak')[0]?.measured).toBe('195.0 MiB vs 200.0 MiB');
    expect(byStart('overlay step')).toEqual([
      expect.objectContaining({ met: false, measured: '18.5 %, 5 execs', miss: '13.5 points over' }),
    ]);
    const over = targetChecks({ ...r, scale: [scale(1000, side(81, 20, 0), side(100, 1, 5))] });
    expect(over.find((c) => c.target.startsWith('steady resident memory under'))?.miss).toBe(
      '1.0 MiB over',
    );
  });

  it('is n/a when nothing was run', () => {
    const checks = targetChecks(report([]));
    expect(checks[0]).toMatchObject({ met: undefined, measured: 'not run' });
  });
});
