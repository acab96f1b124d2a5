// Maps from a watched object to the keys to reconcile (controller-runtime handlers).
import type { KubeObject } from '../../kube/object.js';
import type { ReconcileRequest } from './reconciler.js';

/**
 * Maps a watched object to the keys of the objects to reconcile (controller-runtime's
 * handler.EventHandler).
 */
export type RequestMapper<U = KubeObject> = (obj: U) => ReconcileRequest[];

/** The object itself (For). */
export const requestForObject: RequestMapper<unknown> = (o) => {
  const m = (o as KubeObject).metadata;
  if (!m?.name) return [];
  return [m.namespace ? { name: m.name, namespace: m.namespace } : { name: m.name }];
};

/**
 * The controlling owner of the given kind (Owns). Owners of namespaced objects live in the
 * same namespace; cluster-scoped owners (e.g. a Node owning a Lease) set clusterScopedOwner.
 */
export function requestForOwner(owner: {
  kind: string;
  apiGroup?: string;
  clusterScopedOwner?: boolean;
  onlyController?: boolean;
}): RequestMapper<unknown> {
  return (o) => {
    const m = (o as KubeObject).metadata;
    return (m?.ownerReferences ?? [])
      .filter((r) => r.kind === owner.kind)
      .filter((r) => owner.apiGroup === undefined || groupOf(r.apiVersion) === owner.apiGroup)
      .filter((r) => owner.onlyController === false || r.controller === true)
      .map((r) =>
        owner.clusterScopedOwner || !m?.namespace
          ? { name: r.name }
          : { name: r.name, namespace: m.namespace },
      );
  };
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}
