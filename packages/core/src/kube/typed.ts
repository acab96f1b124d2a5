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

export interface ResourceClient<T extends KubeObject> {
  readonly resource: ResourceType;
  get(key: ObjectKey | string, opts?: SignalOption): Promise<T>;
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  listAll(opts?: ListOptions): Promise<{ items: T[]; resourceVersion: string }>;
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  update(obj: T, opts?: WriteOptions): Promise<T>;
  apply(obj: T, opts: ApplyOptions): Promise<T>;
  /** server-side apply of the status subresource. */
  applyStatus(obj: T, opts: ApplyOptions): Promise<T>;
  patch(key: ObjectKey | string, patch: KubePatch, opts?: WriteOptions): Promise<T>;
  patchStatus(key: ObjectKey | string, patch: KubePatch, opts?: WriteOptions): Promise<T>;
  delete(key: ObjectKey | string, opts?: Omit<DeleteOptions, 'namespace'>): Promise<void>;
}

const toKey = (k: ObjectKey | string): ObjectKey => (typeof k === 'string' ? { name: k } : k);

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

export const nodeClient = (c: KubeClient): ResourceClient<KubeNode> =>
  resourceClient<KubeNode>(c, NodeResource);
export const podClient = (c: KubeClient): ResourceClient<KubePod> =>
  resourceClient<KubePod>(c, PodResource);
export const leaseClient = (c: KubeClient): ResourceClient<KubeLease> =>
  resourceClient<KubeLease>(c, LeaseResource);
export const eventClient = (c: KubeClient): ResourceClient<KubeEvent> =>
  resourceClient<KubeEvent>(c, EventResource);
export function customResourceClient<T extends KubeObject>(
  c: KubeClient,
  def: Parameters<typeof customResource>[0],
): ResourceClient<T> {
  return resourceClient<T>(c, customResource(def));
}
