// The client port: the few verbs a controller needs, generic over the resource type.
// Adapters (client-node, kubernetes-fluent-client) implement it; runtime/ depends only on it.
import type { KubeStatus } from './status.js';
import type { KubeApiError } from './errors.js';
import type { KubeObject, ObjectList } from './object.js';
import type { ResourceType } from './resource.js';

export interface NamespaceOption {
  namespace?: string | undefined;
}

/**
 * The cancellation every verb takes (controller-runtime's context): aborting it ends the call
 * at once with a RequestAbortedError, and a call whose signal is already aborted sends
 * nothing. Controllers pass their ReconcileContext's signal, which the manager aborts on
 * shutdown and the moment the Lease is lost.
 */
export interface SignalOption {
  signal?: AbortSignal | undefined;
}

export interface GetOptions extends NamespaceOption, SignalOption {
  subresource?: string | undefined;
}

export interface ListOptions extends NamespaceOption, SignalOption {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** page size; the server returns metadata.continue when there is more. */
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan' | undefined;
}

export interface WatchOptions extends NamespaceOption, SignalOption {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  resourceVersion?: string | undefined;
  allowWatchBookmarks?: boolean | undefined;
  /** server-side timeout; the server ends the stream cleanly after it. */
  timeoutSeconds?: number | undefined;
  /** aborting ends the iteration (no error, unlike the other verbs). */
  signal?: AbortSignal | undefined;
}

export type WatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: T }
  | { type: 'ERROR'; status: KubeStatus; error: KubeApiError };

export interface WriteOptions extends NamespaceOption, SignalOption {
  fieldManager?: string | undefined;
  dryRun?: boolean | undefined;
  /** e.g. "status"; the request goes to /<name>/<subresource>. */
  subresource?: string | undefined;
}

export interface ApplyOptions extends WriteOptions {
  /** server-side apply requires a field manager. */
  fieldManager: string;
  /** take ownership of conflicting fields instead of failing with a ConflictError. */
  force?: boolean | undefined;
}

export type KubePatch =
  /** RFC 7386 merge patch. resourceVersion, when set, is added as a precondition. */
  | { type: 'merge'; body: Record<string, unknown>; resourceVersion?: string | undefined }
  /** RFC 6902 JSON patch. resourceVersion, when set, is replaced first: a stale one -> ConflictError. */
  | { type: 'json'; ops: JsonPatchOp[]; resourceVersion?: string | undefined }
  | { type: 'strategic'; body: Record<string, unknown>; resourceVersion?: string | undefined };

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export interface DeleteOptions extends NamespaceOption, SignalOption {
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  gracePeriodSeconds?: number | undefined;
  dryRun?: boolean | undefined;
}

export interface EvictOptions extends SignalOption {
  deleteOptions?: Omit<DeleteOptions, 'namespace' | 'signal'> | undefined;
  dryRun?: boolean | undefined;
}

export interface KubeClient {
  get<T extends KubeObject>(rt: ResourceType, name: string, opts?: GetOptions): Promise<T>;
  /** One page; follow metadata.continue (or use listAll) for the rest. */
  list<T extends KubeObject>(rt: ResourceType, opts?: ListOptions): Promise<ObjectList<T>>;
  /** Ends when the server closes the stream or the signal aborts; throws on HTTP errors. */
  watch<T extends KubeObject>(rt: ResourceType, opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  create<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT; metadata.resourceVersion in obj is an optimistic-concurrency precondition. */
  update<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  /** Server-side apply (application/apply-patch+yaml; JSON is valid YAML). */
  apply<T extends KubeObject>(rt: ResourceType, obj: T, opts: ApplyOptions): Promise<T>;
  patch<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    patch: KubePatch,
    opts?: WriteOptions,
  ): Promise<T>;
  delete(rt: ResourceType, name: string, opts?: DeleteOptions): Promise<void>;
  /** policy/v1 Eviction of a Pod; a PDB refusal surfaces as TooManyRequestsError. */
  evict(namespace: string, podName: string, opts?: EvictOptions): Promise<void>;
}
