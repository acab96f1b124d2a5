// The demo's machines: each Node is a FAKE kubelet (@noderepair/envtest) on a FAKE Nova
// server (FakeOpenStack). Nothing connects the two in those fakes, so this is the wire a
// real VM provides: when Nova starts rebooting a server its kubelet goes silent, and when the
// server is ACTIVE again with one more boot the kubelet comes back (new boot ID, Ready=True)
// — unless the machine is broken for good, then it never comes back.
import type { KubeConfig } from '@kubernetes/client-node';
import { startFakeKubelet, type FakeKubelet } from '@noderepair/envtest';
import type { FakeOpenStack } from '@noderepair/capo-remediation';
import { ZONE_LABEL } from '../record/sample.js';
import { HEARTBEAT_S } from './policy.js';

export interface Machine {
  readonly node: string;
  readonly zone: string;
  readonly serverId: string;
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
    private readonly nova: FakeOpenStack,
    private readonly onEvent: (e: MachineEvent) => void,
  ) {}

  /** Creates a Nova server and registers its Node with a heartbeating fake kubelet. */
  async create(node: string, zone: string): Promise<Machine> {
    const serverId = this.nova.addServer({ name: node });
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

  /** Removes a machine (replaced): its kubelet stops and its server is deleted. */
  async remove(node: string): Promise<void> {
    const m = this.byNode.get(node);
    if (!m) return;
    this.byNode.delete(node);
    await m.kubelet.stop();
    this.nova.deleteServer(m.serverId);
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
        const s = this.nova.server(m.serverId); // reading settles a transition whose time has come
        if (!s) continue;
        const rebooting = s.status === 'REBOOT' || s.status === 'HARD_REBOOT';
        if (rebooting && !m.rebooting) {
          m.rebooting = true;
          m.kubelet.stopHeartbeats();
          this.onEvent({
            node: m.node,
            kind: 'PowerOff',
            note: `Nova server ${s.status}: the kubelet goes down with the VM`,
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
            // reboot(0): a new boot ID and Ready=True, as a kubelet starting on a fresh boot.
            // Not awaited: one slow status post must not hold up every other machine.
            const booting: Promise<void> = m.kubelet
              .reboot(0)
              .finally(() => this.#pending.delete(booting));
            this.#pending.add(booting);
            this.onEvent({
              node: m.node,
              kind: 'KubeletBack',
              note: `booted (boot ${s.boots}): kubelet posts Ready=True with a new boot ID`,
            });
          }
        }
      }
    } finally {
      this.#busy = false;
    }
  }
}
