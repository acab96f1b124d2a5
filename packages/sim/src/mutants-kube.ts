// Deliberately broken Kubernetes-side adapters, to show invariants (d), (f), (g) and (i) can
// fail.
// Each is a bug a hand-written adapter could ship with; the tests expect the named invariant
// to catch it.
import type { NodeCache, NodeView } from '@noderepair/core/autorepair';
import type { DrainPort } from '@noderepair/core/drain';
import type {
  GetOptions,
  KubeClient,
  KubeNode,
  KubeObject,
  ListOptions,
  ResourceType,
} from '@noderepair/core/kube';

/**
 * MUTANT: a drain port that writes the taints it adds as the whole list (forgetting that a
 * merge patch replaces spec.taints): adding or removing the out-of-service taint drops every
 * other taint on the Node, an operator's among them. Invariant (f).
 */
export function taintListReplaced(port: DrainPort): DrainPort {
  return {
    ...port,
    patchNode: async (name, patch, signal) => {
      if (patch.addTaints === undefined && patch.removeTaintKeys === undefined)
        return port.patchNode(name, patch, signal);
      const n = await port.getNode(name, signal);
      const keep = new Set((patch.addTaints ?? []).map((t) => t.key));
      const others = (n?.spec?.taints ?? []).map((t) => t.key).filter((k) => !keep.has(k));
      return port.patchNode(
        name,
        { ...patch, removeTaintKeys: [...(patch.removeTaintKeys ?? []), ...others] },
        signal,
      );
    },
  };
}

/**
 * MUTANT: a client whose Node decoding drops spec.unschedulable (a hand-written schema that
 * does not know the field): the reconciler never sees a person's cordon, so the ManualCordon
 * hold never applies and the repair starts under it. Invariant (g). (The drain port is built
 * on the same client, as in production, so it never sees the cordon to undo it either.)
 */
export function blindToCordon(c: KubeClient): KubeClient {
  const strip = <T extends KubeObject>(o: T): T => {
    const n = o as KubeNode;
    const { unschedulable: _u, ...spec } = n.spec ?? {};
    return { ...n, spec } as unknown as T;
  };
  return {
    get: async <T extends KubeObject>(rt: ResourceType, name: string, opts?: GetOptions) => {
      const o = await c.get<T>(rt, name, opts);
      return rt.kind === 'Node' ? strip(o) : o;
    },
    list: async <T extends KubeObject>(rt: ResourceType, opts?: ListOptions) => {
      const l = await c.list<T>(rt, opts);
      return rt.kind === 'Node' ? { ...l, items: l.items.map(strip) } : l;
    },
    watch: (rt, opts) => c.watch(rt, opts),
    create: (rt, obj, opts) => c.create(rt, obj, opts),
    update: (rt, obj, opts) => c.update(rt, obj, opts),
    apply: (rt, obj, opts) => c.apply(rt, obj, opts),
    patch: (rt, name, p, opts) => c.patch(rt, name, p, opts),
    delete: (rt, name, opts) => c.delete(rt, name, opts),
    evict: (ns, pod, opts) => c.evict(ns, pod, opts),
  };
}

/**
 * MUTANT: a drain port that knows Nodes by name alone: it remembers the uid it first read for
 * each name and reports it ever after (as a port caching Node metadata by name would), and
 * writes without the uid precondition. A Node deleted and re-created under the name (a
 * machine someone replaced during the repair) then passes the executor's identity check, and
 * the old repair's cordon, evictions and taint land on the new Node. Invariant (i).
 */
export function identityByName(port: DrainPort): DrainPort {
  const uids = new Map<string, string>();
  return {
    ...port,
    getNode: async (name, signal) => {
      const n = await port.getNode(name, signal);
      const uid = n?.metadata?.uid;
      if (n === undefined || uid === undefined) return n;
      if (!uids.has(name)) uids.set(name, uid);
      return { ...n, metadata: { ...n.metadata, uid: uids.get(name)! } };
    },
    patchNode: (name, patch, signal) => {
      const { uid: _uid, ...byName } = patch;
      return port.patchNode(name, byName, signal);
    },
  };
}

/**
 * MUTANT: a Node cache whose `list()` (what the fleet pass and the burst admission count
 * in-flight repairs from) is a copy refreshed only every `every`th call, while `get()` is
 * live (a lister over a snapshot refreshed "now and then"). The reconciler drops its overlay of
 * an unconfirmed state write once `get()` shows it, and the next fleet pass counts the
 * repairs in flight from the stale copy: it admits a repair past maxInFlight. Invariant (d).
 */
export function staleFleetList(every = 50): (c: NodeCache) => NodeCache {
  return (c) => {
    let copy: NodeView[] = [];
    let calls = 0;
    return {
      get: (name) => c.get(name),
      list: () => {
        if (calls++ % every === 0) copy = c.list();
        return copy;
      },
    };
  };
}
