// The JSON shape every Kubernetes object shares. Kept structural (plain JSON, strings for
// timestamps) so objects round-trip byte-for-byte and adapters never convert dates.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** name (+ namespace for namespaced resources) identifying one object. */
export interface ObjectKey {
  name: string;
  namespace?: string;
}

/** The cache/queue key client-go uses: "namespace/name", or "name" when cluster-scoped. */
export function objectKeyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

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
