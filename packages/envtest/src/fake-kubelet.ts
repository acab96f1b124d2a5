import { randomUUID } from 'node:crypto';
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import './client-node-guard.js';
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Lease,
  type V1Node,
  type V1NodeCondition,
  type V1Taint,
} from '@kubernetes/client-node';

/**
 * FAKE kubelet: the one fake in @noderepair/envtest. It does what a real kubelet does for
 * the API server's view of a node — registers the Node, renews its Lease in kube-node-lease
 * and posts NodeStatus with the kubelet's own reason strings — and nothing else (no pods
 * run). The real node lifecycle controller in kube-controller-manager judges it exactly as
 * it would a real kubelet: stop the heartbeats and the node turns Ready=Unknown.
 */

/** The condition types the kubelet itself sets. */
const KUBELET_CONDITIONS = new Set(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
/** The Node a {@link FakeKubelet} registers and how it heartbeats. */
export interface FakeKubeletOptions {
  /** The Node's name, also its Lease's name and hostname label. */
  name: string;
  /** Labels added to the defaults (hostname, os=linux, arch=amd64), overriding them on a clash. */
  labels?: Record<string, string>;
  /** Annotations set on the Node at registration. */
  annotations?: Record<string, string>;
  /** spec.providerID, the cloud machine the Node claims to be (e.g. `openstack:///<server id>`). */
  providerID?: string;
  /** Taints set on the Node at registration. */
  taints?: V1Taint[];
  /** Lease renewal and status post interval. Real kubelet: 10 s lease, status on change / 5 min. */
  heartbeatSeconds?: number;
  /** Start with heartbeats running (default) or registered but silent. */
  start?: boolean;
  /** status.nodeInfo.kubeletVersion; defaults to `v1.35.4`. */
  kubeletVersion?: string;
}

/** The kubelet's Ready=False messages for the common causes, as kubelet v1.35 writes them (pkg/kubelet/nodestatus/setters.go, pkg/kubelet/kubelet.go). */
export const KubeletNotReadyMessages = {
  containerRuntimeDown: 'container runtime is down',
  runtimeNetworkNotReady:
    'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
  plegUnhealthy: 'PLEG is not healthy: pleg was last seen active 3m0.1s ago; threshold is 3m0s',
  shuttingDown: 'node is shutting down',
  missingCapacity: 'missing node capacity for resources: pods',
} as const;

const LEASE_NAMESPACE = 'kube-node-lease';

type ReadyState = { status: 'True' } | { status: 'False'; reason: string; message: string };

/**
 * A fake kubelet for one Node: registers it, renews its Lease and posts NodeStatus on an
 * interval, so the real node lifecycle controller judges it as it would a real node. No pods run.
 */
export class FakeKubelet {
  /** The Node's name. */
  readonly name: string;
  private timer: NodeJS.Timeout | undefined;
  private ready: ReadyState = { status: 'True' };
  private bootID = randomUUID();
  private ticking: Promise<void> | undefined;
  private periodicInFlight = false;
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;
  private heartbeats = 0;
  private lastError: Error | undefined;
  private volumesInUse: string[] = [];

  private constructor(
    kc: KubeConfig,
    private readonly opts: FakeKubeletOptions,
  ) {
    this.name = opts.name;
    this.core = kc.makeApiClient(CoreV1Api);
    this.coordination = kc.makeApiClient(CoordinationV1Api);
  }

  /**
   * Registers the Node (an existing one is adopted) and, unless `opts.start` is false, posts a
   * first heartbeat before resolving and keeps heartbeating.
   */
  static async start(kc: KubeConfig, opts: FakeKubeletOptions): Promise<FakeKubelet> {
    const k = new FakeKubelet(kc, opts);
    await k.register();
    if (opts.start ?? true) {
      await k.tick();
      k.resumeHeartbeats();
    }
    return k;
  }

  /** Whether the heartbeat loop is running (false after stopHeartbeats, stop or during reboot). */
  get heartbeating(): boolean {
    return this.timer !== undefined;
  }

  /** Heartbeats posted so far (lease renewals). */
  get heartbeatCount(): number {
    return this.heartbeats;
  }

  /** The boot ID reported in status.nodeInfo.bootID; it changes on every reboot(). */
  get currentBootID(): string {
    return this.bootID;
  }

  /** The last error a heartbeat met (heartbeats keep going, as the kubelet's do). */
  get error(): Error | undefined {
    return this.lastError;
  }

  /** The kubelet stops (hung, crashed, network cut): no Lease renewal, no status. */
  stopHeartbeats(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Restarts the heartbeat loop after stopHeartbeats; does nothing when it already runs. */
  resumeHeartbeats(): void {
    if (this.timer) return;
    const ms = (this.opts.heartbeatSeconds ?? 1) * 1000;
    this.timer = setInterval(() => {
      // As the kubelet's own loops (wait.Until), a heartbeat still in flight is not queued
      // again: a slow API server delays heartbeats instead of piling them up without bound
      // (which would also delay every setNotReady/setReady/reboot queued behind them).
      if (this.periodicInFlight) return;
      this.periodicInFlight = true;
      void this.tick().finally(() => (this.periodicInFlight = false));
    }, ms);
    this.timer.unref();
  }

  /** The kubelet reports Ready=False, reason KubeletNotReady, with the given message. */
  async setNotReady(message: string = KubeletNotReadyMessages.containerRuntimeDown, reason = 'KubeletNotReady'): Promise<void> {
    this.ready = { status: 'False', reason, message };
    await this.tick();
  }

  /** The kubelet reports Ready=True again; resolves after that status has been posted. */
  async setReady(): Promise<void> {
    this.ready = { status: 'True' };
    await this.tick();
  }

  /**
   * The volumes the kubelet's volume manager has mounted, reported in status.volumesInUse
   * (unique names, e.g. `kubernetes.io/csi/<driver>^<volumeHandle>`) on this and every later
   * heartbeat. The attach-detach controller will not detach a volume listed there (unless the
   * node is out of service or its 6-minute unmount wait ran out on an unhealthy node).
   */
  async setVolumesInUse(volumes: readonly string[]): Promise<void> {
    this.volumesInUse = [...volumes].sort();
    await this.tick();
  }

  /**
   * A reboot: heartbeats stop for downMs, then the kubelet comes back with a new boot ID and
   * Ready=True. Resolves when the node has posted status again.
   */
  async reboot(downMs: number): Promise<void> {
    this.stopHeartbeats();
    await new Promise((r) => setTimeout(r, downMs));
    this.bootID = randomUUID();
    this.ready = { status: 'True' };
    await this.tick();
    this.resumeHeartbeats();
  }

  /** Stops the loops; the Node object stays (as when a VM is powered off). */
  async stop(): Promise<void> {
    this.stopHeartbeats();
    await this.ticking;
  }

  private async register(): Promise<void> {
    const body: V1Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.name,
        labels: {
          'kubernetes.io/hostname': this.name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          ...this.opts.labels,
        },
        annotations: this.opts.annotations,
      },
      spec: { providerID: this.opts.providerID, taints: this.opts.taints },
    };
    try {
      await this.core.createNode({ body });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }

  private tick(): Promise<void> {
    // Serialise: a slow API server must not get overlapping status updates from one node.
    const run = (this.ticking ?? Promise.resolve()).then(async () => {
      try {
        await this.renewLease();
        await this.postStatus();
        this.heartbeats++;
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err as Error;
      }
    });
    this.ticking = run;
    return run;
  }

  private async renewLease(): Promise<void> {
    // Lease times are metav1.MicroTime (microseconds). client-node serialises Dates with
    // millisecond precision, which the API server rejects, so renewTime goes in a merge
    // patch as a string in the MicroTime format.
    const renewTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const patch = { spec: { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime } };
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    try {
      await this.coordination.patchNamespacedLease({ name: this.name, namespace: LEASE_NAMESPACE, body: patch }, mergePatch);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      const node = await this.core.readNode({ name: this.name });
      const body: V1Lease = {
        metadata: {
          name: this.name,
          namespace: LEASE_NAMESPACE,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: node.metadata?.uid as string }],
        },
        spec: { holderIdentity: this.name, leaseDurationSeconds: 40 },
      };
      await this.coordination.createNamespacedLease({ namespace: LEASE_NAMESPACE, body });
      await this.coordination.patchNamespacedLease({ name: this.name, namespace: LEASE_NAMESPACE, body: patch }, mergePatch);
    }
  }

  private async postStatus(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const node = await this.core.readNode({ name: this.name });
      node.status = this.status(node);
      try {
        await this.core.replaceNodeStatus({ name: this.name, body: node });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 3) throw err;
      }
    }
  }

  /** Builds status as the kubelet's setters do: lastTransitionTime moves only on a change. */
  private status(node: V1Node): V1Node['status'] {
    const now = new Date();
    const previous = new Map((node.status?.conditions ?? []).map((c) => [c.type, c]));
    const cond = (type: string, status: string, reason: string, message: string): V1NodeCondition => {
      const prev = previous.get(type);
      return {
        type,
        status,
        reason,
        message,
        lastHeartbeatTime: now,
        lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now,
      };
    };
    const ready =
      this.ready.status === 'True'
        ? cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
        : cond('Ready', 'False', this.ready.reason, this.ready.message);
    const resources = { cpu: '4', memory: '16393892Ki', pods: '110', 'ephemeral-storage': '101203948Ki' };
    return {
      // The attach-detach controller owns volumesAttached; the kubelet's status patch leaves it
      // alone, and so must this replace (or every heartbeat would erase the controller's view).
      volumesAttached: node.status?.volumesAttached,
      volumesInUse: this.volumesInUse.length > 0 ? [...this.volumesInUse] : undefined,
      capacity: resources,
      allocatable: resources,
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        ready,
        // The real kubelet patches only the condition types it sets: others' conditions (the
        // node-problem-detector's, noderepair's NodeRepairHeld) survive its status updates.
        ...(node.status?.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type)),
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.10' },
        { type: 'Hostname', address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: this.name.padEnd(32, '0').slice(0, 32),
        systemUUID: this.name,
        bootID: this.bootID,
        kernelVersion: '6.1.0-28-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion: this.opts.kubeletVersion ?? 'v1.35.4',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    };
  }
}

/** Registers a Node and starts its fake kubelet; see FakeKubelet. */
export function startFakeKubelet(kc: KubeConfig, opts: FakeKubeletOptions): Promise<FakeKubelet> {
  return FakeKubelet.start(kc, opts);
}
