// The demo's machines: each Node is a FAKE kubelet (@noderepair/envtest) on a Nova server of
// a Cloud: the FAKE Nova, or the REAL OpenStack test bed (src/cloud). Nothing connects a fake
// kubelet to a server, so this is the wire a real VM provides: when Nova starts rebooting a
// server its kubelet goes silent, and when Nova has finished the reboot (one more boot) the
// kubelet comes back (new boot ID, Ready=True) — unless the machine is broken for good, then
// it never comes back.
import type { KubeConfig } from '@kubernetes/client-node';
import { startFakeKubelet, type FakeKubelet } from '@noderepair/envtest';
import type { Cloud } from '../cloud/cloud.js';
import { ZONE_LABEL } from '../record/sample.js';
import { HEARTBEAT_S } from './policy.js';

export interface Machine {
  readonly node: string;
  readonly zone: string;
  readonly serverId: string;
  /** Where the server lives (fake Nova or the real test bed). */
  readonly cloud: Cloud;
  readonly kubelet: FakeKubelet;
  /** The hardware is dead: Nova reboots it, the kubelet never returns. */
  broken: boolean;
  /** Completed reboots observed on the Nova server. */
  powerCycles: number;
  /** True while Nova shows the server rebooting. */
  rebooting: boolean;
}

export type MachineEvent = {
  node: string;
  kind: 'PowerOff' | 'KubeletBack' | 'StaysDown';
  note: string;
};

export class Machines {
  readonly byNode = new Map<string, Machine>();
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly kc: KubeConfig,
    /** The cloud a node's server is created in. */
    private readonly cloudFor: (node: string) => Cloud,
    private readonly onEvent: (e: MachineEvent) => void,
  ) {}

  /** Creates a Nova server and registers its Node with a heartbeating fake kubelet. */
  async create(node: string, zone: string): Promise<Machine> {
    const cloud = this.cloudFor(node);
    const serverId = await cloud.createServer(node);
    const kubelet = await startFakeKubelet(this.kc, {
      name: node,
      labels: { [ZONE_LABEL]: zone, 'node-role.kubernetes.io/worker': '' },
      providerID: `openstack:///${serverId}`,
      heartbeatSeconds: HEARTBEAT_S,
    });
    const m: Machine = {
      node,
      zone,
      serverId,
      cloud,
      kubelet,
      broken: false,
      powerCycles: 0,
      rebooting: false,
    };
    this.byNode.set(node, m);
    return m;
  }

  get(node: string): Machine {
    const m = this.byNode.get(node);
    if (!m) throw new Error(`demo: no machine for node ${node}`);
    return m;
  }

  /**
   * Drops a machine whose server is gone from Nova: its kubelet stops (the VM is gone). Out of
   * the map at once, so a machine is replaced once; resolves when the kubelet has stopped.
   */
  async forget(node: string): Promise<void> {
    const m = this.byNode.get(node);
    if (!m) return;
    this.byNode.delete(node);
    await m.kubelet.stop();
  }

  /** Starts following Nova: every 250 ms each server's status drives its kubelet. */
  start(): void {
    this.#timer = setInterval(() => void this.#follow(), 250);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all(this.#pending);
    await Promise.all([...this.byNode.values()].map((m) => m.kubelet.stop()));
  }

  async #follow(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const m of this.byNode.values()) {
        const s = m.cloud.observe(m.serverId);
        if (!s) continue;
        const nova = `Nova (${m.cloud.kind})`;
        // A reboot can start and end between two looks (the real fake driver takes
        // milliseconds): one more boot with no reboot seen was a power cycle all the same.
        if ((s.rebooting || s.boots > m.powerCycles) && !m.rebooting) {
          m.rebooting = true;
          m.kubelet.stopHeartbeats();
          this.onEvent({
            node: m.node,
            kind: 'PowerOff',
            note: `${nova} server ${s.rebooting ? s.status : 'rebooted'}: the kubelet goes down with the VM`,
          });
        }
        if (s.boots > m.powerCycles) {
          m.powerCycles = s.boots;
          m.rebooting = false;
          if (m.broken) {
            m.kubelet.stopHeartbeats();
            this.onEvent({
              node: m.node,
              kind: 'StaysDown',
              note: 'server ACTIVE again, but the kubelet never comes back (broken machine)',
            });
          } else {
            // After the cloud's boot time: a new boot ID and Ready=True, as a kubelet starting
            // on a fresh boot (the fake Nova's reboot transition already was the downtime; the
            // real fake driver's takes milliseconds, so a 1.5 s boot is added). Not awaited: one slow status post must not hold up every other machine.
            const booting: Promise<void> = m.kubelet
              .reboot(m.cloud.bootMs)
              .finally(() => this.#pending.delete(booting));
            this.#pending.add(booting);
            this.onEvent({
              node: m.node,
              kind: 'KubeletBack',
              note: `${nova} finished the reboot (boot ${s.boots}): kubelet posts Ready=True with a new boot ID`,
            });
          }
        }
      }
    } finally {
      this.#busy = false;
    }
  }
}
