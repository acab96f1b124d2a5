// Deliberately broken Kubernetes-side adapters, to show invariants (f) and (g) can fail.
// Each is a bug a hand-written adapter could ship with; the tests expect the named invariant
// to catch it.
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
