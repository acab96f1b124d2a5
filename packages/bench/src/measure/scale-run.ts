// One scale point: both controllers freshly started against the same N workers, one after
// the other (2 shared cores: their initial syncs must not compete), then a steady-state
// window, then 1 % of the Nodes post Ready=False at the same whole second and both race to
// create their remediation. Everything here is measured, nothing asserted.
import {
  createKubeClient,
  customResource,
  EventResource,
  type KubeObject,
} from '@noderepair/core/kube';
import { BENCH_NAMESPACE } from '../cluster/identities.js';
import { MachineResource, type CapiWorld } from '../cluster/capi-world.js';
import { REMEDIATION_GROUP, REMEDIATION_VERSION } from '../cluster/capi-objects.js';
import {
  Heartbeats,
  forEachLimited,
  POOL_LABEL,
  postReady,
  workerName,
} from '../cluster/node-writer.js';
import { NodeRepairProcess } from '../controllers/noderepair-process.js';
import { readProcUsage } from '../proc/proc-stat.js';
import { followStartup, type StartupFigures } from '../proc/startup.js';
import { summarize, type Summary } from '../stats/percentile.js';
import { measureAdmissionFloor, type AdmissionFloor } from './admission-floor.js';
import { FirstSeen } from './first-seen.js';
import { measureSteadyRequests, type RequestRates } from './steady-requests.js';

export interface ScaleOptions {
  nodes: number;
  timeoutSeconds: number;
  steadyWindowMs: number;
  heartbeatPeriodMs: number;
  /** Index of the first failing node; the failing 1 % are spread evenly from here. */
  seed: number;
  /** Follow the Cluster API manager's initial sync at most this long, then measure anyway. */
  capiSyncLimitMs: number;
}

export interface SideResult {
  startup: StartupFigures;
  /** Resident memory at the end of the steady window and the peak since exec (VmHWM). */
  rssBytes: number;
  peakRssBytes: number;
  /** CPU seconds spent during the steady window, per minute. */
  steadyCpuSecondsPerMinute: number;
  requestsPerMinute: number;
  remediation: Summary & { expected: number; missing: number };
}

export interface ScaleResult {
  nodes: number;
  failedNodes: number;
  timeoutSeconds: number;
  heartbeatsPerSecond: number;
  writerRequestsPerMinute: number;
  ours: SideResult;
  capi: SideResult;
  /** Cluster API only: when the MHC marked the Machine (HealthCheckSucceeded=False), seen by watch. */
  capiMarked: Summary & { expected: number; missing: number };
  delaysMs: { ours: number[]; capi: number[]; capiMarked: number[] };
  /** The requests alone that starting the failing nodes needs, timed with both controllers stopped. */
  admissionFloor?: AdmissionFloor;
}

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 1 % of the workers (at least one), spread evenly over the index range. Pure. */
export function failingIndexes(nodes: number, seed: number): number[] {
  const k = Math.max(1, Math.round(nodes / 100));
  const stride = nodes / k;
  return Array.from({ length: k }, (_, j) => Math.floor(seed + j * stride) % nodes);
}

export async function runScale(world: CapiWorld, o: ScaleOptions): Promise<ScaleResult> {
  const admin = createKubeClient(world.cp.kubeConfig);
  const names = Array.from({ length: world.count }, (_, i) => workerName(i));
  const heartbeats = new Heartbeats(world.writerClient, () => names, o.heartbeatPeriodMs);
  heartbeats.start();
  let ours: NodeRepairProcess | undefined;
  try {
    // 1. Initial syncs, one after the other.
    await world.stopManager();
    const t0 = Date.now();
    ours = await NodeRepairProcess.start({
      kubeconfigPath: world.identities.noderepair.kubeconfigPath,
      dir: world.dir,
      timeoutSeconds: o.timeoutSeconds,
      tag: String(o.nodes),
    });
    const o1 = ours;
    const oursStartup = await followStartup({
      pid: () => o1.pid,
      startedAt: t0,
      alive: () => o1.running,
      metricsUrl: `${o1.probeUrl}/metrics`,
      controller: 'noderepair-autorepair',
      objects: world.count,
      timeoutMs: 600_000,
      what: 'noderepair run',
    });
    log(`ours synced: ${JSON.stringify(oursStartup)}`);
    const t1 = Date.now();
    const mgr = await world.startManager();
    const capiStartup = await followStartup({
      pid: () => mgr.pid as number,
      startedAt: t1,
      alive: () => mgr.running,
      metricsUrl: `http://${mgr.diagnosticsAddress}/metrics`,
      controller: 'machine',
      objects: world.count,
      timeoutMs: o.capiSyncLimitMs,
      onTimeout: 'report',
      what: 'cluster-api-controller',
    });
    log(`capi synced: ${JSON.stringify(capiStartup)}`);

    // 2. Steady state: requests per minute from the apiserver's counters, CPU and RSS from /proc.
    await sleep(5_000);
    const cpu0 = {
      ours: readProcUsage(o1.pid).cpuSeconds,
      capi: readProcUsage(mgr.pid as number).cpuSeconds,
    };
    const tw = Date.now();
    const rates: RequestRates = await measureSteadyRequests(world.cp, o.steadyWindowMs);
    const winMin = (Date.now() - tw) / 60_000;
    const usage = { ours: readProcUsage(o1.pid), capi: readProcUsage(mgr.pid as number) };
    log(`steady requests/min: ${JSON.stringify(rates)}`);

    // 3. 1 % NotReady at one whole second; both watched from before the change.
    const failing = failingIndexes(world.count, o.seed).map(workerName);
    const wanted = new Set(failing);
    const ourEvents = new FirstSeen(admin, EventResource, { namespace: 'default' }, (e) => {
      const ev = e as KubeObject & {
        reason?: string;
        regarding?: { kind?: string; name?: string };
      };
      return ev.reason === 'RepairStarted' &&
        ev.regarding?.kind === 'Node' &&
        wanted.has(ev.regarding.name ?? '')
        ? ev.regarding.name
        : undefined;
    });
    const capiRemediations = new FirstSeen(
      admin,
      customResource({
        group: REMEDIATION_GROUP,
        version: REMEDIATION_VERSION,
        kind: 'OpenStackRemediation',
        namespaced: true,
      }),
      { namespace: BENCH_NAMESPACE },
      (r) => {
        const owner =
          r.metadata?.ownerReferences?.find((x) => x.kind === 'Machine')?.name ?? r.metadata?.name;
        return owner !== undefined && wanted.has(owner) ? owner : undefined;
      },
    );
    const capiMarks = new FirstSeen(
      admin,
      MachineResource,
      { namespace: BENCH_NAMESPACE, labelSelector: `${POOL_LABEL}=workers` },
      (m) => {
        const conds = (m as { status?: { conditions?: Array<{ type: string; status: string }> } })
          .status?.conditions;
        const name = m.metadata?.name;
        return name !== undefined &&
          wanted.has(name) &&
          conds?.some((c) => c.type === 'HealthCheckSucceeded' && c.status === 'False')
          ? name
          : undefined;
      },
    );
    await ourEvents.start();
    await capiRemediations.start();
    await capiMarks.start();
    const at = Math.ceil((Date.now() + 1_000) / 1000) * 1000; // a whole second: the API keeps seconds
    await sleep(at - Date.now());
    await forEachLimited(failing, 16, (n) => postReady(world.writerClient, n, 'False', at));
    const deadline = at + o.timeoutSeconds * 1000;
    log(
      `${failing.length} nodes Ready=False at ${new Date(at).toISOString()}, deadline ${new Date(deadline).toISOString()}`,
    );
    const giveUp = deadline + 120_000;
    while (
      Date.now() < giveUp &&
      (ourEvents.seen.size < wanted.size || capiRemediations.seen.size < wanted.size)
    ) {
      await sleep(250);
    }
    await ourEvents.stop();
    await capiRemediations.stop();
    await capiMarks.stop();
    const after = { ours: readProcUsage(o1.pid), capi: readProcUsage(mgr.pid as number) };
    const delays = (m: Map<string, number>) => [...m.values()].map((t) => t - deadline);
    const side = (
      startup: StartupFigures,
      steady: ReturnType<typeof readProcUsage>,
      peak: number,
      cpu0s: number,
      req: number,
      seen: Map<string, number>,
    ): SideResult => ({
      startup,
      rssBytes: steady.rssBytes,
      peakRssBytes: peak,
      steadyCpuSecondsPerMinute: +((steady.cpuSeconds - cpu0s) / winMin).toFixed(2),
      requestsPerMinute: req,
      remediation: {
        ...summarize(delays(seen)),
        expected: wanted.size,
        missing: wanted.size - seen.size,
      },
    });
    const result: ScaleResult = {
      nodes: world.count,
      failedNodes: failing.length,
      timeoutSeconds: o.timeoutSeconds,
      heartbeatsPerSecond: +((world.count * 1000) / o.heartbeatPeriodMs).toFixed(1),
      writerRequestsPerMinute: rates.writer,
      ours: side(
        oursStartup,
        usage.ours,
        after.ours.peakRssBytes,
        cpu0.ours,
        rates.noderepair,
        ourEvents.seen,
      ),
      capi: side(
        capiStartup,
        usage.capi,
        after.capi.peakRssBytes,
        cpu0.capi,
        rates.capi,
        capiRemediations.seen,
      ),
      capiMarked: {
        ...summarize(delays(capiMarks.seen)),
        expected: wanted.size,
        missing: wanted.size - capiMarks.seen.size,
      },
      delaysMs: {
        ours: delays(ourEvents.seen).sort((a, b) => a - b),
        capi: delays(capiRemediations.seen).sort((a, b) => a - b),
        capiMarked: delays(capiMarks.seen).sort((a, b) => a - b),
      },
    };
    log(
      `remediation delays: ours ${JSON.stringify(result.ours.remediation)} capi ${JSON.stringify(result.capi.remediation)}`,
    );
    // 4. The failed nodes come back, so the next scale starts from a healthy fleet.
    const back = Date.now();
    await forEachLimited(failing, 16, (n) => postReady(world.writerClient, n, 'True', back));
    // 5. The floor under the burst figure, on the same apiserver with nobody else talking to it.
    await ours.stop();
    ours = undefined;
    await world.stopManager();
    result.admissionFloor = await measureAdmissionFloor(
      world.identities.noderepair.kubeConfig,
      failing,
    );
    return result;
  } finally {
    heartbeats.stop();
    await ours?.stop();
  }
}
