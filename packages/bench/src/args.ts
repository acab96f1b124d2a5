// `pnpm bench [--quick] [--sizes 1000,5000,10000] ...`: flags to options (pure).
import { parseArgs } from 'node:util';

export interface BenchOptions {
  mode: 'full' | 'quick' | 'custom';
  sizes: number[];
  steadySeconds: number;
  timeoutSeconds: number;
  heartbeatSeconds: number;
  out: string;
  scale: boolean;
  informers: boolean;
  micro: boolean;
  /** No new scale point is started after this many minutes (the informers still run). */
  maxMinutes: number;
  /**
   * How long to follow the Cluster API manager's initial sync before measuring anyway; its
   * figure is then reported as "not done within" with the CPU spent so far.
   */
  capiSyncLimitSeconds: number;
  /** The capo-remediation scale points: remediations N x workload clusters W (every pair). */
  capo: boolean;
  capoSizes: number[];
  capoClusters: number[];
}

export const usage = `usage: pnpm bench [--quick] [--sizes N,N,...] [--steady-seconds S] [--timeout-seconds S]
                  [--heartbeat-seconds S] [--out FILE] [--max-minutes M]
                  [--capi-sync-limit-seconds S] [--skip-scale] [--skip-informers] [--skip-micro]
                  [--capo-sizes N,N] [--capo-clusters W,W] [--skip-capo]

  --quick              one scale point of 1,000 nodes (~8 min)
  --sizes              node counts of the scale points (default 1000,5000,10000)
  --steady-seconds     steady-state window for requests per minute (default 30)
  --timeout-seconds    NotReady timeout of both controllers (default 20)
  --heartbeat-seconds  every node re-posts its status this often (default 300, the kubelet's)
  --out                JSON results file (default reports/bench.json; the markdown goes next to it)
  --max-minutes        start no new scale point after this many minutes (default 20), so the
                       whole run stays within ~30 min on a slow machine; skipped points are listed
  --capi-sync-limit-seconds  follow the Cluster API manager's initial sync at most this long
                       (default 150), then measure anyway and report its sync as "not done within"
  --capo-sizes         remediations at once of the capo-remediation points, against the real
                       Nova of the OpenStack test bed (default 50,200; run under
                       flock -o /tmp/noderepair-testbed.lock)
  --capo-clusters      workload clusters of those points (default 1,3); every size x every count
  --skip-capo          no capo-remediation points (no OpenStack test bed needed)`;

function positiveInt(v: string | undefined, flag: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${flag}: expected a positive whole number, got "${v}"`);
  return n;
}

/** "N,N,..." of increasing positive whole numbers (each point is built fresh; order is the report's). */
function increasingList(v: unknown, flag: string, dflt: number[]): number[] {
  if (typeof v !== 'string') return dflt;
  const out = v.split(',').map((s) => positiveInt(s.trim(), flag, 0));
  if (out.some((s, i) => i > 0 && s <= (out[i - 1] as number)))
    throw new Error(`${flag}: expected increasing numbers, got "${v}"`);
  return out;
}

export function parseBenchArgs(argv: string[]): BenchOptions {
  // pnpm passes a lone "--" through when the user writes `pnpm bench -- --quick`.
  const args = argv.filter((a) => a !== '--');
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({
      args,
      options: {
        quick: { type: 'boolean' },
        sizes: { type: 'string' },
        'steady-seconds': { type: 'string' },
        'timeout-seconds': { type: 'string' },
        'heartbeat-seconds': { type: 'string' },
        out: { type: 'string' },
        'skip-scale': { type: 'boolean' },
        'skip-informers': { type: 'boolean' },
        'skip-micro': { type: 'boolean' },
        'max-minutes': { type: 'string' },
        'capi-sync-limit-seconds': { type: 'string' },
        'capo-sizes': { type: 'string' },
        'capo-clusters': { type: 'string' },
        'skip-capo': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${usage}`);
  }
  const quick = v['quick'] === true;
  let sizes = quick ? [1000] : [1000, 5000, 10000];
  if (typeof v['sizes'] === 'string') {
    sizes = v['sizes'].split(',').map((s) => positiveInt(s.trim(), '--sizes', 0));
    if (sizes.some((s, i) => i > 0 && s <= (sizes[i - 1] as number)))
      throw new Error(
        `--sizes: expected increasing node counts (the cluster only grows), got "${v['sizes']}"`,
      );
  }
  return {
    capo: v['skip-capo'] !== true,
    capoSizes: increasingList(v['capo-sizes'], '--capo-sizes', [50, 200]),
    capoClusters: increasingList(v['capo-clusters'], '--capo-clusters', [1, 3]),
    mode: typeof v['sizes'] === 'string' ? 'custom' : quick ? 'quick' : 'full',
    sizes,
    steadySeconds: positiveInt(v['steady-seconds'] as string | undefined, '--steady-seconds', 30),
    timeoutSeconds: positiveInt(
      v['timeout-seconds'] as string | undefined,
      '--timeout-seconds',
      20,
    ),
    heartbeatSeconds: positiveInt(
      v['heartbeat-seconds'] as string | undefined,
      '--heartbeat-seconds',
      300,
    ),
    out: typeof v['out'] === 'string' ? v['out'] : 'reports/bench.json',
    scale: v['skip-scale'] !== true,
    informers: v['skip-informers'] !== true,
    micro: v['skip-micro'] !== true,
    maxMinutes: positiveInt(v['max-minutes'] as string | undefined, '--max-minutes', 20),
    capiSyncLimitSeconds: positiveInt(
      v['capi-sync-limit-seconds'] as string | undefined,
      '--capi-sync-limit-seconds',
      150,
    ),
  };
}
