// A STAND-IN for the owner of the node group (Cluster Autoscaler, a Magnum node group, Heat, a
// user's script): the demo's, not noderepair's. noderepair's Replace deletes the Nova server
// and then the Node; bringing capacity back is the owner's job, as docs/providers.md says.
// This stand-in does what such an owner does: it notices that a server of its group is gone
// from Nova and creates a new machine (a new server, a new Node) in the same zone.
import type { Machine, Machines } from './machines.js';

/** zone-b-07 -> zone-b-07-r1 -> zone-b-07-r2: a new machine gets a new name. Pure. */
export function successorName(node: string): string {
  const r = /^(.*)-r(\d+)$/.exec(node);
  return r ? `${r[1]}-r${Number(r[2]) + 1}` : `${node}-r1`;
}

export class NodeGroupStandIn {
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly machines: Machines,
    /** Told when a server was found gone and its successor's Node registered. */
    private readonly onReplaced: (old: Machine, fresh: Machine) => void,
    private readonly onError: (message: string) => void,
  ) {}

  /** Looks at Nova once a second, as an autoscaler's loop does (more often than a real one). */
  start(): void {
    this.#timer = setInterval(() => void this.#look(), 1000);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all(this.#pending);
  }

  async #look(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const m of [...this.machines.byNode.values()]) {
        if (!(await m.cloud.gone(m.serverId))) continue;
        // The VM is gone, and its kubelet with it; the Node object is noderepair's to delete.
        const p = this.machines
          .forget(m.node)
          .then(() => this.machines.create(successorName(m.node), m.zone))
          .then((fresh) => this.onReplaced(m, fresh))
          .catch((e: unknown) =>
            this.onError(`node group stand-in: replacing ${m.node}: ${(e as Error).message}`),
          )
          .finally(() => this.#pending.delete(p));
        this.#pending.add(p);
      }
    } catch {
      // A failed look at Nova is retried at the next one.
    } finally {
      this.#busy = false;
    }
  }
}
