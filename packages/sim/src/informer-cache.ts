// The informer's cache as the reconciler sees it, fed from SimKube's changes through a
// SIMULATED watch: with no lag a change is in the cache at once; during a watch-lag fault
// each change is delivered `lag` virtual ms later, on the controller's clock (so a reconcile
// waiting for its own write sees it arrive, or gives up after its cacheSyncTimeoutMs), in
// order per Node, and a delivery older than what the cache holds is dropped (resourceVersions
// are compared as the etcd revisions they are). A new process relists: fresh at once.
import type { KubeNode } from '@noderepair/core/kube';
import {
  nodeViewChanged,
  toNodeView,
  type NodeCache,
  type NodeView,
} from '@noderepair/core/autorepair';
import type { ManualClock } from '@noderepair/core/testing';

/** A lagging Node cache; `lagMs()` is asked at each change (0: delivered at once). */
export class InformerCache implements NodeCache {
  private readonly views = new Map<string, NodeView>();
  private readonly lastDelivery = new Map<string, number>();

  constructor(
    private readonly clock: ManualClock,
    private readonly keys: readonly string[],
    private readonly lagMs: () => number,
    /** The informer's event handler: a change the predicate passes wakes the node. */
    private readonly onEvent: (name: string) => void,
  ) {}

  get(name: string): NodeView | undefined {
    return this.views.get(name);
  }

  list(): NodeView[] {
    return [...this.views.values()];
  }

  /** Names of the cached Nodes. */
  names(): string[] {
    return [...this.views.keys()];
  }

  /** SimKube's change of a Node, delivered now or after the lag. */
  changed(name: string, node: KubeNode | undefined): void {
    const view = node === undefined ? undefined : toNodeView(node, [...this.keys]);
    const lag = this.lagMs();
    if (lag <= 0 && !this.lastDelivery.has(name)) return this.deliver(name, view);
    const at = Math.max(this.lastDelivery.get(name) ?? 0, this.clock.now() + lag);
    this.lastDelivery.set(name, at);
    this.clock.setTimeout(() => {
      if (this.lastDelivery.get(name) === at) this.lastDelivery.delete(name);
      this.deliver(name, view);
    }, at - this.clock.now());
  }

  /** A new process's informer: a fresh list of every Node. */
  relist(nodes: readonly KubeNode[]): void {
    for (const n of nodes) this.deliver(n.metadata!.name!, toNodeView(n, [...this.keys]));
  }

  private deliver(name: string, view: NodeView | undefined): void {
    const before = this.views.get(name);
    if (view === undefined) {
      this.views.delete(name);
      this.onEvent(name);
      return;
    }
    if (before !== undefined && !newer(view, before)) return;
    this.views.set(name, view);
    if (before === undefined || nodeViewChanged(before, view)) this.onEvent(name);
  }
}

function newer(a: NodeView, b: NodeView): boolean {
  const x = a.metadata.resourceVersion;
  const y = b.metadata.resourceVersion;
  return x === undefined || y === undefined || BigInt(x) > BigInt(y);
}
