// Node events from several clusters as one controller source. The management cluster's Node
// informer (when its Nodes may be the ones remediated) is there from the start; a workload
// cluster's informer joins when a remediation first reaches that cluster and leaves when its
// kubeconfig changes or it is forgotten. Controllers register handlers once, before start;
// this forwards them to every informer, present and future, like Cluster API's ClusterCache
// feeding remote watches into one controller.
import type { EventSource, InformerHandlers } from '@noderepair/core/runtime';

/**
 * Node events from several clusters as one controller source: handlers registered once reach
 * every informer added, before or after start.
 */
export class NodeSources<U> implements EventSource<U> {
  private readonly handlers = new Set<InformerHandlers<U>>();
  /** source -> one unregister function per registered handler */
  private readonly sources = new Map<EventSource<U>, Map<InformerHandlers<U>, () => void>>();

  /** `initial` sources are waited for by waitForSync; later ones by whoever adds them. */
  constructor(private readonly initial: readonly EventSource<U>[] = []) {
    for (const s of initial) this.add(s);
  }

  /** Adds a source; returns the function that removes it again. */
  add(source: EventSource<U>): () => void {
    if (!this.sources.has(source)) {
      const regs = new Map<InformerHandlers<U>, () => void>();
      for (const h of this.handlers) regs.set(h, source.addHandlers(h));
      this.sources.set(source, regs);
    }
    return () => {
      const regs = this.sources.get(source);
      if (regs === undefined) return;
      for (const off of regs.values()) off();
      this.sources.delete(source);
    };
  }

  /** Registers handlers on every present and future source; returns the function that removes them. */
  addHandlers(h: InformerHandlers<U>): () => void {
    this.handlers.add(h);
    for (const [s, regs] of this.sources) regs.set(h, s.addHandlers(h));
    return () => {
      this.handlers.delete(h);
      for (const regs of this.sources.values()) {
        regs.get(h)?.();
        regs.delete(h);
      }
    };
  }

  /** Resolves when the sources given to the constructor have synced; later sources are not waited for. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.initial.map((s) => s.waitForSync(signal)));
  }

  /** The cached objects of every current source, concatenated. */
  list(): U[] {
    return [...this.sources.keys()].flatMap((s) => s.list());
  }

  /** How many clusters feed events now. */
  get size(): number {
    return this.sources.size;
  }
}
