// Typed, resource-bound views of a KubeClient: nodeClient(client).get('n1') instead of passing the
// ResourceType each time. Namespaced kinds take the namespace in the key or options.
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  KubePatch,
  SignalOption,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './client.js';
import type { KubeObject, ObjectKey, ObjectList } from './object.js';
import { listAll } from './pagination.js';
import {
  customResource,
  EventResource,
  LeaseResource,
  NodeResource,
  PodResource,
  type ResourceType,
} from './resource.js';
import type { KubeEvent, KubeLease, KubeNode, KubePod } from './types.js';

/**
 * A KubeClient view bound to one resource type; keys are a name or `namespace/name` object, and
 * errors are those of KubeClient.
 */
export interface ResourceClient<T extends KubeObject> {
  /** The resource type every call addresses. */
  readonly resource: ResourceType;
  /** Reads one object; a missing one is a NotFoundError. */
  get(key: ObjectKey | string, opts?: SignalOption): Promise<T>;
  /** One page of the list; follow `metadata.continue` or use listAll for the rest. */
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  /** Every item, fetched page by page, and the resourceVersion to start a watch from. */
  listAll(opts?: ListOptions): Promise<{ items: T[]; resourceVersion: string }>;
  /** Watch events of the resource; see KubeClient.watch. */
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** Creates the object (namespace from opts or the object's metadata). */
  create(obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Replaces the object; its `metadata.resourceVersion` is an optimistic-concurrency precondition.
   */
  update(obj: T, opts?: WriteOptions): Promise<T>;
  /** Server-side apply of the object as `opts.fieldManager`. */
  apply(obj: T, opts: ApplyOptions): Promise<T>;
  /** server-side apply of the status subresource. */
  applyStatus(obj: T, opts: ApplyOptions): Promise<T>;
  /**
   * Patches the object's main resource (spec and metadata; the status is ignored there for kinds
   * with a status subresource).
   */
  patch(key: ObjectKey | string, patch: KubePatch, opts?: WriteOptions): Promise<T>;
  /** Patches the status subresource; the only way to change status of kinds that have one. */
  patchStatus(key: ObjectKey | string, patch: KubePatch, opts?: WriteOptions): Promise<T>;
  /** Deletes the object; a missing one is a NotFoundError. */
  delete(key: ObjectKey | string, opts?: Omit<DeleteOptions, 'namespace'>): Promise<void>;
}

const toKey = (k: ObjectKey | string): ObjectKey => (typeof k === 'string' ? { name: k } : k);

/** Binds a KubeClient to one resource type. */
export function resourceClient<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
): ResourceClient<T> {
  return {
    resource: rt,
    get: (k, o) => {
      const { name, namespace } = toKey(k);
      return client.get<T>(rt, name, { namespace, ...(o?.signal ? { signal: o.signal } : {}) });
    },
    list: (o) => client.list<T>(rt, o),
    listAll: (o) => listAll<T>(client, rt, o),
    watch: (o) => client.watch<T>(rt, o),
    create: (obj, o) => client.create<T>(rt, obj, o),
    update: (obj, o) => client.update<T>(rt, obj, o),
    apply: (obj, o) => client.apply<T>(rt, obj, o),
    applyStatus: (obj, o) => client.apply<T>(rt, obj, { ...o, subresource: 'status' }),
    patch: (k, p, o) => {
      const { name, namespace } = toKey(k);
      return client.patch<T>(rt, name, p, { namespace, ...o });
    },
    patchStatus: (k, p, o) => {
      const { name, namespace } = toKey(k);
      return client.patch<T>(rt, name, p, { namespace, ...o, subresource: 'status' });
    },
    delete: (k, o) => {
      const { name, namespace } = toKey(k);
      return client.delete(rt, name, { ...o, namespace });
    },
  };
}

/** Typed client of core/v1 Nodes. */
export const nodeClient = (c: KubeClient): ResourceClient<KubeNode> =>
  resourceClient<KubeNode>(c, NodeResource);
/** Typed client of core/v1 Pods (namespaced: pass the namespace in the key). */
export const podClient = (c: KubeClient): ResourceClient<KubePod> =>
  resourceClient<KubePod>(c, PodResource);
/** Typed client of coordination.k8s.io/v1 Leases. */
export const leaseClient = (c: KubeClient): ResourceClient<KubeLease> =>
  resourceClient<KubeLease>(c, LeaseResource);
/** Typed client of events.k8s.io/v1 Events. */
export const eventClient = (c: KubeClient): ResourceClient<KubeEvent> =>
  resourceClient<KubeEvent>(c, EventResource);
/** Typed client of a custom resource; `plural` defaults to the lowercased kind plus `s`. */
export function customResourceClient<T extends KubeObject>(
  c: KubeClient,
  def: Parameters<typeof customResource>[0],
): ResourceClient<T> {
  return resourceClient<T>(c, customResource(def));
}
