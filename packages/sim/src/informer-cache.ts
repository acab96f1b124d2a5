// The informer's cache as the reconciler sees it, fed from SimKube's changes through a
// SIMULATED watch: with no lag a change is in the cache at once; during a watch-lag fault
// each change is delivered `lag` virtual ms later, on the controller's clock (so a reconcile
// waiting for its own write sees it arrive, or gives up after its cacheSyncTimeoutMs), in
// order per Node, and a delivery older than what the cache holds is dropped (resourceVersions
// are compared as the etcd revisions they are). A new process relists: fresh at once.
// A watch can expire (410 Gone: its resourceVersion was compacted away): as the runtime's
// Reflector does (packages/core/src/runtime/reflector/reflector.ts), the informer relists at
// once, with no backoff (a failed list backs off 800 ms doubling to 30 s), and replaces its
// store from the list (Store.replace): an object whose resourceVersion did not change is
// kept silently, a changed one is an update, one missing from the list a delete. The events
// of the dead watch still in flight are lost (the list carries their net effect), and
// changes made until the list returns reach the cache through the list only.
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
  /** Bumped when the watch dies: its deliveries still in flight are dropped. */
  private watchGeneration = 0;
  /** No watch open (expired, the relist not back yet): changes reach the cache by the list. */
  private watching = true;

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
    if (!this.watching) return;
    const view = node === undefined ? undefined : toNodeView(node, [...this.keys]);
    const lag = this.lagMs();
    if (lag <= 0 && !this.lastDelivery.has(name)) return this.deliver(name, view);
    const at = Math.max(this.lastDelivery.get(name) ?? 0, this.clock.now() + lag);
    this.lastDelivery.set(name, at);
    const generation = this.watchGeneration;
    this.clock.setTimeout(() => {
      if (generation !== this.watchGeneration) return;
      if (this.lastDelivery.get(name) === at) this.lastDelivery.delete(name);
      this.deliver(name, view);
    }, at - this.clock.now());
  }

  /** A new process's informer: a fresh list of every Node. */
  relist(nodes: readonly KubeNode[]): void {
    this.replace(nodes);
    // The new process's informer watches from its list (an expired watch's relist still
    // pending replaces the store once more when it returns: harmless).
    this.watching = true;
  }

  /**
   * The watch expires (410 Gone). Its deliveries in flight are lost; the informer relists
   * after `listMs` (the list's round trip), and again after 800 ms doubling to 30 s while
   * `list()` fails (undefined: the apiserver is down); the store is then replaced from the
   * list and the watch resumes. `told` hears what happened (for the history).
   */
  expire(listMs: number, list: () => KubeNode[] | undefined, told: (what: string) => void): void {
    const lost = this.lastDelivery.size;
    this.watchGeneration++;
    this.lastDelivery.clear();
    if (!this.watching) return told(`watch already down: ${lost} deliveries lost`);
    this.watching = false;
    told(`${lost} Nodes' deliveries in flight lost; relisting`);
    const attempt = (failures: number, after: number) =>
      this.clock.setTimeout(() => {
        const nodes = list();
        if (nodes === undefined)
          return attempt(failures + 1, Math.min(800 * 2 ** failures, 30_000));
        const d = this.replace(nodes);
        this.watching = true;
        told(
          `relisted after ${failures} failed lists: ${d.changed} changed, ${d.deleted} deleted, ${d.added} added`,
        );
      }, after);
    attempt(0, listMs);
  }

  /** Store.replace: unchanged resourceVersions kept silently, changes delivered, the missing deleted. */
  private replace(nodes: readonly KubeNode[]): { changed: number; deleted: number; added: number } {
    const d = { changed: 0, deleted: 0, added: 0 };
    const listed = new Set<string>();
    for (const n of nodes) {
      const name = n.metadata!.name!;
      listed.add(name);
      const before = this.views.get(name);
      const view = toNodeView(n, [...this.keys]);
      if (before === undefined) d.added++;
      else if (before.metadata.resourceVersion !== view.metadata.resourceVersion) d.changed++;
      this.deliver(name, view);
    }
    for (const name of [...this.views.keys()])
      if (!listed.has(name)) {
        d.deleted++;
        this.deliver(name, undefined);
      }
    return d;
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
