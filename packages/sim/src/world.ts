// The simulated world around the controller: Nodes in SimKube whose Ready condition follows
// their kubelet and their machine in SimCloud, and the scheduled faults applied to both.
// A kubelet hangs (Ready=Unknown, as the node lifecycle controller reports a silent kubelet);
// a power cycle Nova carried out restarts it (cured, or still hung when the fault survives
// reboots), booting for BOOT_MS; a machine that is off leaves its Node Unknown (no kubelet
// shutdown announcement in this slice). Status writes go around the fault switches: the
// kubelet is another client of the apiserver than the controller.
import type { KubeNode } from '@noderepair/core/kube';
import { readyTexts } from '@noderepair/core/testing';
import type { Agenda } from './agenda.js';
import type { Fault } from './schedule.js';
import type { History } from './history.js';
import type { SimCloud } from './sim-cloud.js';
import type { SimKube } from './sim-kube.js';

/** How long a machine takes from a power cycle until its kubelet posts again. */
export const BOOT_MS = 90_000;

interface Kubelet {
  hung: boolean;
  cure?: 'power-cycle' | 'self';
  bootingUntil: number;
}

/** The machine behind a Node (its providerID). */
export const machineOf = (node: string) => `sim://${node}`;

/** Nodes, kubelets and machines, and the faults applied to them. */
export class World {
  private readonly kubelets = new Map<string, Kubelet>();
  /** Faults active now, by kind (for the report of what a state write happened during). */
  readonly active = new Map<string, number>();

  constructor(
    private readonly kube: SimKube,
    private readonly cloud: SimCloud,
    private readonly agenda: Agenda,
    private readonly history: History,
    private readonly now: () => number,
    private readonly t0: number,
  ) {
    cloud.onPowerCycle = (m) => {
      const node = m.id.replace(/^sim:\/\//, '');
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
  }

  /** Adds a Ready node on a running machine, in a zone. */
  addNode(name: string, zone: string): void {
    this.cloud.add(machineOf(name));
    this.kubelets.set(name, { hung: false, bootingUntil: 0 });
    const node: KubeNode = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: { 'topology.kubernetes.io/zone': zone, 'kubernetes.io/hostname': name },
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
  }

  /** What the Ready condition says now. */
  private readyText(name: string): 'ready' | 'unknown' {
    const k = this.kubelets.get(name)!;
    const m = this.cloud.machines.get(machineOf(name))!;
    return m.power === 'On' && !k.hung && this.now() >= k.bootingUntil ? 'ready' : 'unknown';
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
    const m = this.cloud.machines.get(machineOf(name))!;
    const bootID = `${name}-boot-${m.boots}`;
    const cur = n.status?.conditions?.find((c) => c.type === 'Ready');
    const want = readyTexts[this.readyText(name)];
    if (cur?.status === want.status && n.status?.nodeInfo?.bootID === bootID) return;
    const since =
      cur?.status === want.status ? Date.parse(cur.lastTransitionTime ?? '') : this.now();
    this.kube.put('Node', {
      ...n,
      status: {
        ...n.status,
        conditions: [this.readyCondition(name, since)],
        nodeInfo: { ...n.status?.nodeInfo, bootID },
      },
    } as KubeNode);
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
      case 'person-stop': {
        this.history.add({ kind: 'fault', fault: 'person stops machine', target: f.node });
        cloud.personStop(machineOf(f.node));
        this.post(f.node);
        if (f.startAt !== undefined)
          this.agenda.at(this.t0 + f.startAt, () => {
            this.history.add({ kind: 'fault', fault: 'person starts machine', target: f.node });
            cloud.personStart(machineOf(f.node));
          });
        return;
      }
    }
  }
}
