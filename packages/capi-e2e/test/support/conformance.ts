// Conformance of @noderepair/core's MachineHealthCheck evaluation with the REAL MHC: a
// snapshot of the Cluster, the MHC's Machines and their Nodes is evaluated by
// evaluateMachineHealthCheck and compared with what the real controller published at that
// time (its status and the HealthCheckSucceeded condition it writes on each Machine).
//
// The real MHC's status is written by its last reconcile, so a snapshot only counts when the
// MHC is settled around it: observedGeneration == generation and the compared status is the
// same when read before and after the world was read (with a pause), i.e. no reconcile changed
// it meanwhile. Otherwise the snapshot is retried.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { NodeSnapshot } from '@noderepair/core/health';
import {
  decodeMachineHealthCheck,
  evaluateMachineHealthCheck,
  type MhcCluster,
  type MhcMachine,
  type MhcTarget,
} from '@noderepair/core/mhc';

type Cond = { type: string; status: string; reason?: string; lastTransitionTime?: string };
interface RawMhc {
  apiVersion: string;
  metadata: { name: string; generation?: number };
  spec: { selector: { matchLabels?: Record<string, string> } };
  status?: {
    observedGeneration?: number;
    expectedMachines?: number;
    currentHealthy?: number;
    remediationsAllowed?: number;
    targets?: string[];
    conditions?: Cond[];
  };
}
interface RawMachine extends MhcMachine {
  status?: MhcMachine['status'] & { conditions?: Cond[] };
}

export interface Verdict {
  targets: string[];
  expectedMachines: number;
  currentHealthy: number;
  remediationAllowed: boolean;
  /** Machines judged unhealthy (real: HealthCheckSucceeded=False on the v1beta2 Machine). */
  unhealthy: string[];
}

export interface ConformanceRecord {
  label: string;
  at: string;
  mhc: string;
  real: Verdict;
  ours: Verdict;
  /** Fields that differ (empty = conformant). */
  differences: string[];
  /** Why a field was not compared (the real MHC's per-Machine readout was not usable). */
  notes: string[];
}

const ver = (apiVersion: string) => apiVersion.split('/')[1] ?? 'v1beta2';

function realVerdict(mhc: RawMhc, machines: RawMachine[]): Verdict {
  const s = mhc.status ?? {};
  const allowed = s.conditions?.find((c) => c.type === 'RemediationAllowed')?.status === 'True';
  return {
    targets: [...(s.targets ?? [])].sort(),
    expectedMachines: s.expectedMachines ?? -1,
    currentHealthy: s.currentHealthy ?? -1,
    remediationAllowed: allowed,
    unhealthy: machines
      .filter((m) =>
        m.status?.conditions?.some(
          (c) => c.type === 'HealthCheckSucceeded' && c.status === 'False',
        ),
      )
      .map((m) => m.metadata.name)
      .sort(),
  };
}

const statusKey = (mhc: RawMhc, machines: RawMachine[]) =>
  JSON.stringify(realVerdict(mhc, machines));

/** A Node as @noderepair/core reads it (conditions with their times and reasons). */
export function toSnapshot(n: V1Node): NodeSnapshot {
  return {
    metadata: {
      name: n.metadata?.name,
      creationTimestamp: n.metadata?.creationTimestamp,
      ...(n.metadata?.deletionTimestamp ? { deletionTimestamp: n.metadata.deletionTimestamp } : {}),
      labels: n.metadata?.labels ?? {},
      annotations: n.metadata?.annotations ?? {},
    },
    spec: {
      unschedulable: n.spec?.unschedulable ?? false,
      taints: (n.spec?.taints ?? []) as never,
      providerID: n.spec?.providerID,
    },
    status: {
      conditions: (n.status?.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
        ...(c.reason ? { reason: c.reason } : {}),
      })),
    },
  } as NodeSnapshot;
}

export class ConformanceRecorder {
  readonly records: ConformanceRecord[] = [];
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(
    kc: KubeConfig,
    private readonly namespace: string,
    private readonly clusterName: string,
  ) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  private async readMhc(name: string, version: string): Promise<RawMhc> {
    return (await this.custom.getNamespacedCustomObject({
      group: 'cluster.x-k8s.io',
      version,
      namespace: this.namespace,
      plural: 'machinehealthchecks',
      name,
    })) as RawMhc;
  }

  private async readMachines(selector: Record<string, string>): Promise<RawMachine[]> {
    const list = (await this.custom.listNamespacedCustomObject({
      group: 'cluster.x-k8s.io',
      version: 'v1beta2',
      namespace: this.namespace,
      plural: 'machines',
      labelSelector: Object.entries(selector)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    })) as { items: RawMachine[] };
    return list.items.filter(
      (m) => m.metadata.labels?.['cluster.x-k8s.io/cluster-name'] === this.clusterName,
    );
  }

  /**
   * Takes one settled snapshot for MHC `name` (read at `version`, as it was written), evaluates
   * it with @noderepair/core and records both verdicts. Returns the record.
   */
  async snapshot(
    label: string,
    name: string,
    version: 'v1beta1' | 'v1beta2',
    timeoutMs = 45_000,
  ): Promise<ConformanceRecord> {
    const deadline = Date.now() + timeoutMs;
    let why = '';
    for (;;) {
      const before = await this.readMhc(name, 'v1beta2');
      const selector = before.spec.selector.matchLabels ?? {};
      const machinesBefore = await this.readMachines(selector);
      const written = await this.readMhc(name, version);
      const cluster = (await this.custom.getNamespacedCustomObject({
        group: 'cluster.x-k8s.io',
        version: 'v1beta2',
        namespace: this.namespace,
        plural: 'clusters',
        name: this.clusterName,
      })) as { spec?: { paused?: boolean }; status?: { conditions?: Cond[] } };
      const nodes = new Map(
        (await this.core.listNode()).items.map((n) => [n.metadata?.name ?? '', n]),
      );
      const now = Date.now();
      await new Promise((r) => setTimeout(r, 1_500));
      const after = await this.readMhc(name, 'v1beta2');
      const machinesAfter = await this.readMachines(selector);
      const settled =
        before.status?.observedGeneration === before.metadata.generation &&
        statusKey(before, machinesBefore) === statusKey(after, machinesAfter) &&
        JSON.stringify(
          machinesBefore.map((m) => [
            m.metadata.name,
            m.status?.nodeRef?.name,
            m.metadata.deletionTimestamp,
          ]),
        ) ===
          JSON.stringify(
            machinesAfter.map((m) => [
              m.metadata.name,
              m.status?.nodeRef?.name,
              m.metadata.deletionTimestamp,
            ]),
          );
      if (settled) {
        const policy = decodeMachineHealthCheck(written);
        if (policy._tag === 'Left')
          throw new Error(`our decoder rejected the MHC ${name}: ${policy.left}`);
        const targets: MhcTarget[] = machinesBefore.map((m) => {
          const nodeName = m.status?.nodeRef?.name;
          const node = nodeName ? nodes.get(nodeName) : undefined;
          return {
            machine: m,
            node: node ? toSnapshot(node) : undefined,
            nodeMissing: Boolean(nodeName) && !node,
          };
        });
        const c: MhcCluster = {
          conditions: (cluster.status?.conditions ?? []) as MhcCluster['conditions'],
          paused: cluster.spec?.paused ?? false,
        };
        // The default rule order is the pinned release's (v1.13).
        const e = evaluateMachineHealthCheck(targets, policy.right, c, now);
        const ours: Verdict = {
          targets: e.targets,
          expectedMachines: e.expectedMachines,
          currentHealthy: e.currentHealthy,
          remediationAllowed: e.remediationAllowed,
          unhealthy: e.unhealthy.map((u) => u.machine).sort(),
        };
        const real = realVerdict(before, machinesBefore);
        // The real MHC publishes its unhealthy set only through HealthCheckSucceeded=False on
        // each Machine. Observed with v1.13.6: while short-circuited (TooManyUnhealthy) it does
        // not write that condition on the newly unhealthy targets, and a False written earlier
        // can outlive recovery. So the set is compared only when it agrees with the MHC's own
        // counts (expectedMachines - currentHealthy); otherwise it is noted, not compared.
        const readoutUsable = real.unhealthy.length === real.expectedMachines - real.currentHealthy;
        const notes = readoutUsable
          ? []
          : [
              `unhealthy not compared: real HealthCheckSucceeded=False on ${JSON.stringify(real.unhealthy)} but ` +
                `expectedMachines-currentHealthy=${real.expectedMachines - real.currentHealthy}; ours=${JSON.stringify(ours.unhealthy)}`,
            ];
        const differences = (Object.keys(real) as Array<keyof Verdict>)
          .filter((k) => k !== 'unhealthy' || readoutUsable)
          .filter((k) => JSON.stringify(real[k]) !== JSON.stringify(ours[k]))
          .map((k) => `${k}: real=${JSON.stringify(real[k])} ours=${JSON.stringify(ours[k])}`);
        const rec = {
          label,
          at: new Date(now).toISOString(),
          mhc: `${name} (${ver(written.apiVersion)})`,
          real,
          ours,
          differences,
          notes,
        };
        this.records.push(rec);
        return rec;
      }
      why = `not settled: before=${statusKey(before, machinesBefore)} after=${statusKey(after, machinesAfter)} gen=${before.metadata.generation} observed=${before.status?.observedGeneration}`;
      if (Date.now() > deadline)
        throw new Error(`conformance snapshot "${label}": MHC ${name} never settled (${why})`);
    }
  }
}
