// The JSON shape every Kubernetes object shares. Kept structural (plain JSON, strings for
// timestamps) so objects round-trip byte-for-byte and adapters never convert dates.

/**
 * Points from a dependent object to its owner; the garbage collector deletes dependents of a
 * deleted owner.
 */
export interface OwnerReference {
  /** API group/version of the owner. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner (same namespace as the dependent, or cluster-scoped). */
  name: string;
  /** UID of the owner: a recreated owner of the same name is a different owner. */
  uid: string;
  /** True on the one reference that names the managing controller. */
  controller?: boolean;
  /** When true, foreground deletion of the owner waits for this dependent to go. */
  blockOwnerDeletion?: boolean;
}

/**
 * metav1.ObjectMeta: identity, versioning and bookkeeping fields common to every object. Timestamps
 * are RFC 3339 strings.
 */
export interface ObjectMeta {
  /** Unique name within the namespace (or cluster, for cluster-scoped kinds). */
  name?: string;
  /** Prefix from which the apiserver generates a unique name on create when `name` is empty. */
  generateName?: string;
  /** Namespace of the object; absent for cluster-scoped kinds. */
  namespace?: string;
  /** Server-assigned ID of this incarnation of the object. */
  uid?: string;
  /** Opaque version for optimistic concurrency and watch resumption; compare for equality only. */
  resourceVersion?: string;
  /** Incremented by the apiserver on each change of the desired state (spec). */
  generation?: number;
  /** RFC 3339 time the object was created. */
  creationTimestamp?: string;
  /** RFC 3339 time deletion was requested; the object lingers until its finalizers are removed. */
  deletionTimestamp?: string;
  /** Seconds the object still has to terminate gracefully once deletion was requested. */
  deletionGracePeriodSeconds?: number;
  /** Key/value labels, selectable by label selectors. */
  labels?: Record<string, string>;
  /** Key/value annotations: unindexed metadata for tools and controllers. */
  annotations?: Record<string, string>;
  /** Finalizers that must all be removed before a deleting object is actually gone. */
  finalizers?: string[];
  /** Owners of this object (see OwnerReference). */
  ownerReferences?: OwnerReference[];
  /** Server-side apply's per-manager field ownership, kept opaque. */
  managedFields?: unknown[];
}

/** The fields every Kubernetes object shares; kinds extend it with their spec and status. */
export interface KubeObject {
  /** API group/version, e.g. `v1` or `apps/v1`. */
  apiVersion?: string;
  /** Kind name, e.g. `Node`. */
  kind?: string;
  /** Identity and bookkeeping; optional because partial objects (patch bodies) omit it. */
  metadata?: ObjectMeta;
}

/** metav1.ListMeta: metadata of a list response. */
export interface ListMeta {
  /** Version of the collection at the time of the list; a watch started from it misses nothing. */
  resourceVersion?: string;
  /** Token for the next page; absent on the last page. */
  continue?: string;
  /** Estimate of the items after this page, when the server knows it. */
  remainingItemCount?: number;
}

/** A list response: one page of objects of one kind. */
export interface ObjectList<T> {
  /** API group/version of the list, e.g. `v1`. */
  apiVersion?: string;
  /** List kind, e.g. `NodeList`. */
  kind?: string;
  /** Resource version and paging token of the list. */
  metadata: ListMeta;
  /** The objects on this page, each with apiVersion and kind restored. */
  items: T[];
}

/** name (+ namespace for namespaced resources) identifying one object. */
export interface ObjectKey {
  /** Object name. */
  name: string;
  /** Namespace; omitted for cluster-scoped resources. */
  namespace?: string;
}

/** The cache/queue key client-go uses: "namespace/name", or "name" when cluster-scoped. */
export function objectKeyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/**
 * Inverse of objectKeyString: `"ns/name"` gives a namespaced key, a key without a slash a
 * cluster-scoped one.
 */
export function parseObjectKey(key: string): ObjectKey {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Key of an object; throws a clear error when metadata.name is missing. */
export function objectKeyOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError(`object ${obj.kind ?? '(unknown kind)'} has no metadata.name`);
  return objectKeyString({ name, namespace: obj.metadata?.namespace });
}
