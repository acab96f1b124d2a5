// The simulated world around the controller: Nodes in SimKube whose Ready condition follows
// their kubelet and their machine in SimCloud, and the scheduled faults applied to both.
// A kubelet hangs (Ready=Unknown, as the node lifecycle controller reports a silent kubelet);
// a power cycle Nova carried out restarts it (cured, or still hung when the fault survives
// reboots), booting for BOOT_MS; a machine that is off leaves its Node Unknown (no kubelet
// shutdown announcement in this slice). Each Ready, schedulable node runs two pods (a
// ReplicaSet's): an evicted pod goes when its kubelet confirms, else stays Terminating until
// the kubelet is back or the pod GC force-deletes it under node.kubernetes.io/out-of-service,
// whose arrival is recorded with the truth (is the machine really fenced?). Status writes go
// around the fault switches: the kubelet is another client of the apiserver than the
// controller.
import type { KubeNode, KubeObject } from '@noderepair/core/kube';
import { readyTexts } from '@noderepair/core/testing';
import type { Agenda } from './agenda.js';
import { BOOT_MS } from './model.js';
import type { Fault } from './schedule.js';
import type { Actor, History } from './history.js';
import { diffMarks, marksOf } from './marks.js';
import type { Machine, SimCloud } from './sim-cloud.js';
import type { SimKube } from './sim-kube.js';

export { BOOT_MS } from './model.js';

interface Kubelet {
  hung: boolean;
  cure?: 'power-cycle' | 'self';
  bootingUntil: number;
  /** The last renewal of the kubelet's Lease while it was down (undefined while it runs). */
  lastRenew?: number;
  /** The machine's boot count when the Node last went NotReady (undefined while Ready). */
  notReadyAtBoot?: number;
}

const OutOfService = 'node.kubernetes.io/out-of-service';

/** The machine behind a Node when the run starts (its providerID). */
export const machineOf = (node: string) => `sim://${node}`;

/** The node a machine was made for: `sim://node-07`, or `sim://node-07~r1` after a replacement. */
export const nodeOfMachine = (machine: string) =>
  machine.replace(/^sim:\/\//, '').replace(/~r\d+$/, '');

/** Nodes, kubelets and machines, and the faults applied to them. */
export class World {
  private readonly kubelets = new Map<string, Kubelet>();
  /** Faults active now, by kind (for the report of what a state write happened during). */
  readonly active = new Map<string, number>();
  private readonly tainted = new Set<string>();
  private lagMax = 0;
  /** Arms a controller crash (the run loop owns the controller); set by the run. */
  onCrash: (point: 'idle' | 'before-send' | 'after-send') => void = () => undefined;
  /** Expires the informer's watch (410 Gone; the run owns the informer); set by the run. */
  onWatchExpired: (listMs: number) => void = () => undefined;
  private pods = 0;
  /** Who is writing a Node now: the world's own actors say so; anything else is the controller. */
  private writer: Actor = 'controller';
  private readonly marks = new Map<string, Set<string>>();
  /**
   * POLICY=npd: node-problem-detector runs on every node, and a hung kubelet on an
   * even-numbered node is a hung container runtime it reports as KernelDeadlock=True
   * (reason DockerHung, the kernel's hung-task line as message, NPD's kernel-monitor.json
   * texts) until the kubelet runs again; otherwise KernelDeadlock=False (KernelHasNoDeadlock).
   * Off: Nodes carry their Ready condition only, as before.
   */
  npd = false;
  /** The machine each Node's providerID names now (a replacement gives it another). */
  private readonly machineIds = new Map<string, string>();
  /** The uid of each Node object as last seen (its identity entries are recorded on change). */
  private readonly uids = new Map<string, { uid: string; providerID: string }>();
  /** Node replacements armed to land just before the controller's next write (replaceNode). */
  private readonly armedReplacements = new Map<
    string,
    { variant: 'new-machine' | 'rebuild'; on: 'any-write' | 'spec-write' }
  >();
  private replacements = 0;
  /**
   * Names whose machine a Replace deleted, and when the node group's owner's new machine has
   * booted: its kubelet registers a new Node under the name once the old Node object is gone.
   */
  private readonly capacity = new Map<string, number>();
  /** The metadata each Node was first made with (name, labels): a new Node gets it again. */
  private readonly baseMeta = new Map<string, NonNullable<KubeNode['metadata']>>();

  constructor(
    private readonly kube: SimKube,
    private readonly cloud: SimCloud,
    private readonly agenda: Agenda,
    private readonly history: History,
    private readonly now: () => number,
    private readonly t0: number,
    private readonly rand: () => number,
  ) {
    cloud.onPowerCycle = (m) => {
      const node = nodeOfMachine(m.id);
      if (this.machine(node) !== m.id) return;
      const k = this.kubelets.get(node);
      if (k === undefined) return;
      if (k.hung && k.cure === 'power-cycle') {
        k.hung = false;
        delete k.cure;
      }
      k.bootingUntil = this.now() + BOOT_MS;
      this.post(node);
      this.agenda.at(k.bootingUntil, () => this.post(node));
    };
    kube.nodeLease = (name) => {
      const k = this.kubelets.get(name);
      if (k === undefined) return undefined;
      const at = this.kubeletUp(name)
        ? this.now() - (this.now() % 10_000)
        : (k.lastRenew ?? this.t0);
      return {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: 'kube-node-lease' },
        spec: {
          holderIdentity: name,
          leaseDurationSeconds: 40,
          renewTime: new Date(at).toISOString(),
        },
      } as KubeObject;
    };
    kube.kubeletConfirms = (pod) => {
      const node = (pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
      return this.kubeletUp(node);
    };
    cloud.later = (at, fn) => this.agenda.at(at, fn);
    cloud.onServerDeleted = (m) => this.serverDeleted(m.id);
    kube.onForceDelete = (pod) => {
      const node = (pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
      this.forced(node, pod.metadata?.name ?? '', 'grace-0', this.writer);
    };
    kube.onEvict = (pod) => {
      const node = (pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
      this.history.add({ kind: 'evict', node, pod: pod.metadata?.name ?? '' });
    };
    kube.beforeNodeWrite = (name, what) => {
      const armed = this.armedReplacements.get(name);
      if (armed === undefined || (armed.on === 'spec-write' && what === 'state')) return;
      this.replaceNode(name, armed.variant, `just before the controller's ${what} write`);
    };
    kube.onNodeChange((name, n) => {
      this.identityChanged(name, n);
      this.marksChanged(name, n);
      this.taintChanged(name, n);
      if (n !== undefined && this.kubeletUp(name)) this.kubeletBack(name, n);
    });
  }

  /** The machine the Node's providerID names now. */
  machine(name: string): string {
    return this.machineIds.get(name) ?? machineOf(name);
  }

  /** Records a Node object's identity when it appears under its name or leaves it. */
  private identityChanged(name: string, n: KubeNode | undefined): void {
    const before = this.uids.get(name);
    const now =
      n === undefined
        ? undefined
        : { uid: n.metadata?.uid ?? '', providerID: n.spec?.providerID ?? '' };
    if (before?.uid === now?.uid) return;
    if (before !== undefined && now === undefined && this.writer !== 'person') {
      // Someone other than the world's own actors deleted the Node (the controller's DeleteNode
      // step): judged against the truth; then the pod GC frees its pods (forced: no kubelet
      // confirms them) and a node group owner's new machine may register under the name.
      this.history.add({
        kind: 'node-delete',
        node: name,
        ...before,
        ...this.fenceTruth(name),
        by: this.writer,
      });
      for (const p of this.podsOn(name))
        this.forced(name, p.metadata!.name!, 'node-deleted', this.writer);
      const due = this.capacity.get(name);
      if (due !== undefined)
        this.agenda.at(Math.max(due, this.now()), () => this.registerNew(name));
    }
    if (before !== undefined)
      this.history.add({ kind: 'node', node: name, change: 'deleted', ...before });
    if (now === undefined) this.uids.delete(name);
    else {
      this.uids.set(name, now);
      this.history.add({ kind: 'node', node: name, change: 'created', ...now });
    }
  }

  /**
   * Someone replaces the machine behind a Node during its repair, and the Node object with it:
   * `new-machine`, the server deleted and a new one made (a new providerID); `rebuild`, the
   * same server rebuilt (same providerID, booted fresh). Either way the Node is deleted (its
   * pods with it: the pod GC) and re-registered by the new kubelet under the same name with a
   * new uid, Ready, with no annotation, cordon or taint: a new object the old repair must not
   * touch (the rule 4).
   */
  replaceNode(name: string, variant: 'new-machine' | 'rebuild', when: string): void {
    this.armedReplacements.delete(name);
    const old = this.kube.peek<KubeNode>('Node', name);
    if (old === undefined) return;
    this.capacity.delete(name);
    const oldMachine = this.machine(name);
    let m = this.cloud.machines.get(oldMachine);
    // A server Nova is deleting cannot be rebuilt: the person makes a new one.
    if (variant === 'new-machine' || m === undefined || m.deleting === true) {
      this.cloud.delete(oldMachine);
      const id = `sim://${name}~r${++this.replacements}`;
      this.machineIds.set(name, id);
      m = this.cloud.add(id);
    } else {
      m.power = 'On';
      delete m.stoppedBy;
      delete m.stoppedAt;
      m.boots++;
    }
    this.history.add({
      kind: 'fault',
      fault: 'person replaces machine',
      target: name,
      detail: `${variant}: ${oldMachine} -> ${m.id} (${when})`,
    });
    this.writer = 'person';
    try {
      this.kube.removeNode(name);
      for (const p of this.podsOn(name)) this.kube.remove('Pod', p.metadata!.name!, 'default');
    } finally {
      this.writer = 'controller';
    }
    const { uid: _u, resourceVersion: _rv, annotations: _a, ...meta } = old.metadata ?? {};
    this.registerNode(name, m, meta);
  }

  /**
   * A new kubelet registers a Node under the name for machine `m`: a new object (new uid),
   * Ready, with no annotation, cordon or taint (a person's replacement, or the node group's
   * owner's new machine after a Replace).
   */
  private registerNode(
    name: string,
    m: Machine,
    meta: Omit<NonNullable<KubeNode['metadata']>, 'uid' | 'resourceVersion' | 'annotations'>,
  ): void {
    const k = this.kubelets.get(name)!;
    k.hung = false;
    delete k.cure;
    k.bootingUntil = 0;
    delete k.notReadyAtBoot;
    delete k.lastRenew;
    this.writer = 'person';
    try {
      this.kube.put('Node', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          ...meta,
          annotations: {},
          creationTimestamp: new Date(this.now()).toISOString(),
        },
        spec: { providerID: m.id },
        status: {
          conditions: [this.readyCondition(name, this.now())],
          nodeInfo: { bootID: `${name}-boot-${m.boots}` },
        },
      } as KubeNode);
    } finally {
      this.writer = 'controller';
    }
    this.history.add({ kind: 'ready', node: name, ready: this.kubeletUp(name) });
    this.post(name);
  }

  /**
   * Nova finished deleting the server a Replace asked it to delete: the kubelet is gone with
   * it (the Node goes NotReady if it was not), and the node group's owner (Cluster Autoscaler,
   * Magnum, Heat) makes a new machine, whose kubelet registers 2-5 min later, once the old Node
   * object is gone (deleted by the controller's DeleteNode step).
   */
  private serverDeleted(machine: string): void {
    const name = nodeOfMachine(machine);
    if (this.machine(name) !== machine) return;
    this.post(name);
    const due = this.now() + 2 * 60_000 + Math.floor(this.rand() * 3 * 60_000);
    this.capacity.set(name, due);
    this.agenda.at(due, () => this.registerNew(name));
  }

  /** The node group owner's new machine registers its Node, if the old one is gone by now. */
  private registerNew(name: string): void {
    const due = this.capacity.get(name);
    if (due === undefined || due > this.now()) return;
    if (this.kube.peek<KubeNode>('Node', name) !== undefined) return;
    this.capacity.delete(name);
    const id = `sim://${name}~r${++this.replacements}`;
    this.machineIds.set(name, id);
    const m = this.cloud.add(id);
    this.history.add({ kind: 'server', machine: id, change: 'created', by: 'node group owner' });
    this.registerNode(name, m, this.baseMeta.get(name) ?? { name });
  }

  /**
   * The world's truth about the machine behind the Node now: fenced when it is off or deleted,
   * or was power-cycled since its Node went NotReady (its old containers are gone). A machine
   * Nova is still deleting runs.
   */
  private fenceTruth(name: string): { fenced: boolean; why: string } {
    const m = this.cloud.machines.get(this.machine(name));
    if (m === undefined) return { fenced: true, why: `machine ${this.machine(name)} deleted` };
    const k = this.kubelets.get(name)!;
    const cycled = k.notReadyAtBoot !== undefined && m.boots > k.notReadyAtBoot;
    if (m.power === 'Off') return { fenced: true, why: 'machine off' };
    if (cycled)
      return {
        fenced: true,
        why: `power-cycled since NotReady (boot ${k.notReadyAtBoot} -> ${m.boots})`,
      };
    return {
      fenced: false,
      why: `machine on${m.deleting === true ? ' (Nova still deleting it)' : ''}, not power-cycled since ${k.notReadyAtBoot !== undefined ? 'NotReady' : 'the run began (Ready)'} (boot ${m.boots})`,
    };
  }

  /** A pod deleted without its kubelet's confirmation: recorded with the truth, then gone. */
  private forced(
    node: string,
    pod: string,
    cause: 'out-of-service' | 'node-deleted' | 'grace-0',
    by: Actor,
  ): void {
    this.history.add({ kind: 'force-pod', node, pod, cause, ...this.fenceTruth(node), by });
    this.kube.remove('Pod', pod, 'default');
  }

  /** The kubelet runs and posts: machine on, not hung, booted. */
  private kubeletUp(name: string): boolean {
    const k = this.kubelets.get(name);
    const m = this.cloud.machines.get(this.machine(name));
    return k !== undefined && m?.power === 'On' && !k.hung && this.now() >= k.bootingUntil;
  }

  /** Records each cordon or taint the write added or removed, and whose write it was. */
  private marksChanged(name: string, n: KubeNode | undefined): void {
    const after = marksOf(n);
    // A deleted Node's marks go with it (`withNode`): judged as the Node's deletion ((e), (i)).
    for (const d of diffMarks(this.marks.get(name) ?? new Set(), after))
      this.history.add({
        kind: 'mark',
        node: name,
        ...d,
        by: this.writer,
        ...(n === undefined ? { withNode: true } : {}),
      });
    this.marks.set(name, after);
  }

  /** A write by one of the world's own actors (a person's kubectl, an operator's tool). */
  private writeAs(
    who: Actor,
    name: string,
    edit: (spec: NonNullable<KubeNode['spec']>) => void,
  ): void {
    const n = this.kube.peek<KubeNode>('Node', name);
    if (n === undefined) return;
    const spec = { ...n.spec };
    edit(spec);
    this.writer = who;
    try {
      this.kube.put('Node', { ...n, spec });
    } finally {
      this.writer = 'controller';
    }
  }

  /** The out-of-service taint arrived: record the truth, then the pod GC force-deletes. */
  private taintChanged(name: string, n: KubeNode | undefined): void {
    const has = n?.spec?.taints?.some((t) => t.key === OutOfService) === true;
    if (!has) {
      this.tainted.delete(name);
      return;
    }
    if (this.tainted.has(name)) return;
    this.tainted.add(name);
    this.history.add({ kind: 'taint', node: name, ...this.fenceTruth(name), by: this.writer });
    for (const p of this.podsOn(name))
      this.forced(name, p.metadata!.name!, 'out-of-service', this.writer);
  }

  private podsOn(name: string): KubeObject[] {
    return this.kube
      .all<KubeObject & { spec?: { nodeName?: string } }>('Pod')
      .filter((p) => p.spec?.nodeName === name);
  }

  /** The kubelet is up: terminating pods go; a schedulable node with none gets two. */
  private kubeletBack(name: string, n: KubeNode): void {
    const pods = this.podsOn(name);
    for (const p of pods)
      if (p.metadata?.deletionTimestamp !== undefined)
        this.kube.remove('Pod', p.metadata.name!, 'default');
    if (pods.length > 0 || n.spec?.unschedulable === true) return;
    for (let i = 0; i < 2; i++) {
      const podName = `${name}-pod-${++this.pods}`;
      this.kube.put('Pod', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: podName,
          namespace: 'default',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'app',
              uid: 'rs-1',
              controller: true,
            },
          ],
        },
        spec: { nodeName: name, containers: [{ name: 'app', image: 'app' }] },
        status: { phase: 'Running' },
      } as KubeObject);
    }
  }

  /** The delay of the next watch delivery: 0, or up to the active watch-lag fault's maximum. */
  watchLag(): number {
    return this.lagMax > 0 ? Math.floor(this.rand() * this.lagMax) : 0;
  }

  /** Adds a Ready node on a running machine, in a zone. */
  addNode(name: string, zone: string): void {
    this.cloud.add(machineOf(name));
    this.kubelets.set(name, { hung: false, bootingUntil: 0 });
    const labels = { 'topology.kubernetes.io/zone': zone, 'kubernetes.io/hostname': name };
    this.baseMeta.set(name, { name, labels });
    const node: KubeNode = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels,
        annotations: {},
        creationTimestamp: new Date(this.t0 - 24 * 3600_000).toISOString(),
      },
      spec: { providerID: machineOf(name) },
      status: {
        conditions: [this.readyCondition(name, this.t0 - 3600_000)],
        nodeInfo: { bootID: `${name}-boot-1` },
      },
    } as KubeNode;
    this.kube.put('Node', node);
    this.post(name);
  }

  /** What the Ready condition says now. */
  private readyText(name: string): 'ready' | 'unknown' {
    return this.kubeletUp(name) ? 'ready' : 'unknown';
  }

  private readyCondition(name: string, since: number) {
    const iso = new Date(since).toISOString();
    return {
      type: 'Ready',
      ...readyTexts[this.readyText(name)],
      lastTransitionTime: iso,
      lastHeartbeatTime: iso,
    };
  }

  /** The kubelet (or the node lifecycle controller) posts the Node's status if it changed. */
  post(name: string): void {
    const n = this.kube.peek<KubeNode>('Node', name);
    if (n === undefined) return;
    // Undefined once Nova deleted the server (a Replace): its kubelet is gone with it.
    const m = this.cloud.machines.get(this.machine(name));
    const boots = m?.boots ?? 0;
    const k = this.kubelets.get(name)!;
    if (this.kubeletUp(name)) {
      delete k.notReadyAtBoot;
      delete k.lastRenew;
      this.kubeletBack(name, n);
    } else {
      k.notReadyAtBoot ??= boots;
      k.lastRenew ??= this.now() - (this.now() % 10_000);
    }
    // The bootID is the kubelet's to post: a hung or booting kubelet posts nothing.
    const bootID = this.kubeletUp(name)
      ? `${name}-boot-${boots}`
      : (n.status?.nodeInfo?.bootID ?? `${name}-boot-${boots}`);
    const cur = n.status?.conditions?.find((c) => c.type === 'Ready');
    const want = readyTexts[this.readyText(name)];
    const npd = this.npdCondition(name, n);
    if (cur?.status === want.status && n.status?.nodeInfo?.bootID === bootID && !npd?.changed)
      return;
    if (cur?.status !== want.status)
      this.history.add({ kind: 'ready', node: name, ready: this.kubeletUp(name) });
    // Its first post (False, at the start) is no fact worth a line.
    if (npd?.reported === true)
      this.history.add({
        kind: 'condition',
        node: name,
        type: npd.condition.type,
        status: npd.condition.status,
        reason: npd.condition.reason,
      });
    const since =
      cur?.status === want.status ? Date.parse(cur.lastTransitionTime ?? '') : this.now();
    this.kube.put('Node', {
      ...n,
      status: {
        ...n.status,
        conditions: [
          this.readyCondition(name, since),
          ...(npd !== undefined ? [npd.condition] : []),
        ],
        nodeInfo: { ...n.status?.nodeInfo, bootID },
      },
    } as KubeNode);
  }

  /** POLICY=npd: the KernelDeadlock condition node-problem-detector posts now (see `npd`). */
  private npdCondition(name: string, n: KubeNode) {
    if (!this.npd) return undefined;
    const k = this.kubelets.get(name);
    const deadlocked = k?.hung === true && Number(name.replace(/\D/g, '')) % 2 === 0;
    const status = deadlocked ? 'True' : 'False';
    const cur = n.status?.conditions?.find((c) => c.type === 'KernelDeadlock');
    const changed = cur?.status !== status;
    const reported = changed && cur !== undefined;
    const at = changed ? this.now() : Date.parse(cur?.lastTransitionTime ?? '');
    const iso = new Date(at).toISOString();
    return {
      changed,
      reported,
      condition: {
        type: 'KernelDeadlock',
        status,
        reason: deadlocked ? 'DockerHung' : 'KernelHasNoDeadlock',
        message: deadlocked
          ? 'task docker:1231 blocked for more than 120 seconds.'
          : 'kernel has no deadlock',
        lastTransitionTime: iso,
        lastHeartbeatTime: iso,
      },
    };
  }

  /** Puts every fault of the schedule on the agenda (begin and end). */
  schedule(faults: readonly Fault[]): void {
    for (const f of faults) this.agenda.at(this.t0 + f.at, () => this.begin(f));
  }

  private window(
    name: string,
    until: number,
    on: () => void,
    off: () => void,
    detail?: string,
  ): void {
    on();
    this.active.set(name, (this.active.get(name) ?? 0) + 1);
    this.history.add({
      kind: 'fault',
      fault: `${name} begins`,
      ...(detail !== undefined ? { detail } : {}),
    });
    this.agenda.at(this.t0 + until, () => {
      const left = (this.active.get(name) ?? 1) - 1;
      if (left > 0) this.active.set(name, left);
      else {
        this.active.delete(name);
        off();
      }
      this.history.add({ kind: 'fault', fault: `${name} ends` });
    });
  }

  private begin(f: Fault): void {
    const { kube, cloud } = this;
    switch (f.kind) {
      case 'kubelet-hang': {
        const k = this.kubelets.get(f.node)!;
        k.hung = true;
        k.cure = f.cure;
        this.history.add({
          kind: 'fault',
          fault: 'kubelet hangs',
          target: f.node,
          detail: `cure=${f.cure}`,
        });
        this.post(f.node);
        if (f.recoverAt !== undefined)
          this.agenda.at(this.t0 + f.recoverAt, () => {
            if (!k.hung) return;
            k.hung = false;
            delete k.cure;
            this.history.add({ kind: 'fault', fault: 'kubelet recovers', target: f.node });
            this.post(f.node);
          });
        return;
      }
      case 'kube-outage':
        return this.window(
          'kube-outage',
          f.until,
          () => (kube.faults.outage = true),
          () => (kube.faults.outage = false),
        );
      case 'kube-timeouts':
        return this.window(
          'kube-timeouts',
          f.until,
          () => (kube.faults.timeoutRate = f.rate),
          () => (kube.faults.timeoutRate = 0),
          `rate=${f.rate}`,
        );
      case 'kube-conflicts':
        return this.window(
          'kube-conflicts',
          f.until,
          () => (kube.faults.conflictRate = f.rate),
          () => (kube.faults.conflictRate = 0),
          `rate=${f.rate}`,
        );
      case 'cloud-outage':
        return this.window(
          'cloud-outage',
          f.until,
          () => (cloud.faults.outage = true),
          () => (cloud.faults.outage = false),
        );
      case 'lost-replies':
        return this.window(
          'lost-replies',
          f.until,
          () => (cloud.faults.lostReplyRate = f.rate),
          () => (cloud.faults.lostReplyRate = 0),
          `rate=${f.rate}`,
        );
      case 'cloud-5xx':
        return this.window(
          'cloud-5xx',
          f.until,
          () => (cloud.faults.fiveXXRate = f.rate),
          () => (cloud.faults.fiveXXRate = 0),
          `rate=${f.rate}`,
        );
      case 'nova-action-errors':
        return this.window(
          'nova-action-errors',
          f.until,
          () => (cloud.faults.actionErrorRate = f.rate),
          () => (cloud.faults.actionErrorRate = 0),
          `rate=${f.rate}`,
        );
      case 'watch-lag':
        return this.window(
          'watch-lag',
          f.until,
          () => (this.lagMax = f.maxMs),
          () => (this.lagMax = 0),
          `max=${f.maxMs}ms`,
        );
      case 'controller-crash':
        this.history.add({ kind: 'fault', fault: 'controller crash armed', detail: f.point });
        return this.onCrash(f.point);
      case 'watch-expired':
        this.history.add({ kind: 'fault', fault: 'watch expires (410 Gone)' });
        return this.onWatchExpired(f.listMs);
      case 'node-replaced':
        if (f.on === 'now') return this.replaceNode(f.node, f.variant, 'between reconciles');
        this.history.add({
          kind: 'fault',
          fault: 'machine replacement armed',
          target: f.node,
          detail: `${f.variant}, at the controller's next ${f.on}`,
        });
        this.armedReplacements.set(f.node, { variant: f.variant, on: f.on });
        // Nobody waits for ever: it lands by itself 10 min later when no write came.
        this.agenda.at(this.t0 + f.at + 10 * 60_000, () => {
          if (this.armedReplacements.has(f.node))
            this.replaceNode(f.node, f.variant, 'no controller write came');
        });
        return;
      case 'person-cordon':
        return this.personCordon(f.node, f.uncordonAt);
      case 'operator-taint':
        return this.operatorTaint(f.node, f.key, f.effect, f.removeAt);
      case 'person-stop': {
        this.history.add({ kind: 'fault', fault: 'person stops machine', target: f.node });
        cloud.personStop(this.machine(f.node));
        this.post(f.node);
        if (f.startAt !== undefined)
          this.agenda.at(this.t0 + f.startAt, () => {
            this.history.add({ kind: 'fault', fault: 'person starts machine', target: f.node });
            cloud.personStart(this.machine(f.node));
          });
        return;
      }
    }
  }

  /**
   * `kubectl cordon`: on a node already cordoned (by anyone) it does nothing, and the person
   * then has no cordon of theirs to undo later.
   */
  private personCordon(node: string, uncordonAt?: number): void {
    const already = this.kube.peek<KubeNode>('Node', node)?.spec?.unschedulable === true;
    this.history.add({
      kind: 'fault',
      fault: 'person cordons node',
      target: node,
      ...(already ? { detail: 'already cordoned: nothing to do' } : {}),
    });
    if (already) return;
    this.writeAs('person', node, (spec) => (spec.unschedulable = true));
    if (uncordonAt === undefined) return;
    this.agenda.at(this.t0 + uncordonAt, () => {
      this.history.add({ kind: 'fault', fault: 'person uncordons node', target: node });
      this.writeAs('person', node, (spec) => delete spec.unschedulable);
    });
  }

  /** `kubectl taint`: a taint of that key already there (anyone's) is left as it is. */
  private operatorTaint(
    node: string,
    key: string,
    effect: 'NoSchedule' | 'NoExecute',
    removeAt?: number,
  ): void {
    const has = (n?: KubeNode) => n?.spec?.taints?.some((t) => t.key === key) === true;
    const already = has(this.kube.peek<KubeNode>('Node', node));
    this.history.add({
      kind: 'fault',
      fault: 'operator taints node',
      target: node,
      detail: already ? `${key} already there: nothing to do` : `${key}:${effect}`,
    });
    if (already) return;
    this.writeAs('operator', node, (spec) => {
      spec.taints = [...(spec.taints ?? []), { key, value: 'true', effect }];
    });
    if (removeAt === undefined) return;
    this.agenda.at(this.t0 + removeAt, () => {
      this.history.add({
        kind: 'fault',
        fault: 'operator removes taint',
        target: node,
        detail: key,
      });
      this.writeAs('operator', node, (spec) => {
        const left = (spec.taints ?? []).filter((t) => t.key !== key);
        if (left.length > 0) spec.taints = left;
        else delete spec.taints;
      });
    });
  }
}
