// The client port: the few verbs a controller needs, generic over the resource type.
// Adapters (client-node, kubernetes-fluent-client) implement it; runtime/ depends only on it.
import type { KubeStatus } from './status.js';
import type { KubeApiError } from './errors.js';
import type { KubeObject, ObjectList } from './object.js';
import type { ResourceType } from './resource.js';

/**
 * Selects the namespace of a namespaced resource; leave it out for cluster-scoped kinds or to span
 * all namespaces.
 */
export interface NamespaceOption {
  /** Namespace to address; undefined means cluster-scoped, or all namespaces for list and watch. */
  namespace?: string | undefined;
}

/**
 * The cancellation every verb takes (controller-runtime's context): aborting it ends the call
 * at once with a RequestAbortedError, and a call whose signal is already aborted sends
 * nothing. Controllers pass their ReconcileContext's signal, which the manager aborts on
 * shutdown and the moment the Lease is lost.
 */
export interface SignalOption {
  /** Aborting ends the call with a RequestAbortedError; an already aborted signal sends nothing. */
  signal?: AbortSignal | undefined;
}

/** Options of KubeClient.get. */
export interface GetOptions extends NamespaceOption, SignalOption {
  /** Reads a subresource (e.g. `status`) instead of the object itself. */
  subresource?: string | undefined;
}

/** Options of KubeClient.list: selectors, paging and the resourceVersion semantics of the read. */
export interface ListOptions extends NamespaceOption, SignalOption {
  /** Label selector, e.g. `app=x,tier!=db`. */
  labelSelector?: string | undefined;
  /** Field selector, e.g. `spec.nodeName=node-1`. */
  fieldSelector?: string | undefined;
  /** page size; the server returns metadata.continue when there is more. */
  limit?: number | undefined;
  /** The `metadata.continue` token of the previous page. */
  continue?: string | undefined;
  /** Consistency of the read: unset is a quorum read; `0` may be served from the watch cache. */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` is interpreted; requires `resourceVersion` to be set. */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan' | undefined;
}

/** Options of KubeClient.watch. */
export interface WatchOptions extends NamespaceOption, SignalOption {
  /** Label selector limiting the events to matching objects. */
  labelSelector?: string | undefined;
  /** Field selector limiting the events to matching objects. */
  fieldSelector?: string | undefined;
  /**
   * Start after this version (typically a list's resourceVersion); a too old one ends in a
   * GoneError or 410 ERROR event.
   */
  resourceVersion?: string | undefined;
  /**
   * Ask the server for BOOKMARK events carrying the current resourceVersion, so a restart can
   * resume without a relist.
   */
  allowWatchBookmarks?: boolean | undefined;
  /** server-side timeout; the server ends the stream cleanly after it. */
  timeoutSeconds?: number | undefined;
  /** aborting ends the iteration (no error, unlike the other verbs). */
  signal?: AbortSignal | undefined;
}

/**
 * One event of a watch stream. BOOKMARK objects carry only a resourceVersion; ERROR carries the
 * server's status (e.g. 410 Gone: relist).
 */
export type WatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: T }
  | { type: 'ERROR'; status: KubeStatus; error: KubeApiError };

/** Options of the writing verbs (create, update, patch). */
export interface WriteOptions extends NamespaceOption, SignalOption {
  /** Name recorded in managedFields as the writer of the changed fields. */
  fieldManager?: string | undefined;
  /** Server-side dry run: validated and admitted, not persisted. */
  dryRun?: boolean | undefined;
  /** e.g. "status"; the request goes to /<name>/<subresource>. */
  subresource?: string | undefined;
}

/** Options of KubeClient.apply (server-side apply). */
export interface ApplyOptions extends WriteOptions {
  /** server-side apply requires a field manager. */
  fieldManager: string;
  /** take ownership of conflicting fields instead of failing with a ConflictError. */
  force?: boolean | undefined;
}

/**
 * A patch body for KubeClient.patch; `strategic` is only valid for built-in kinds, not custom
 * resources.
 */
export type KubePatch =
  /** RFC 7386 merge patch. resourceVersion, when set, is added as a precondition. */
  | { type: 'merge'; body: Record<string, unknown>; resourceVersion?: string | undefined }
  /** RFC 6902 JSON patch. resourceVersion, when set, is replaced first: a stale one -> ConflictError. */
  | { type: 'json'; ops: JsonPatchOp[]; resourceVersion?: string | undefined }
  | { type: 'strategic'; body: Record<string, unknown>; resourceVersion?: string | undefined };

/** One RFC 6902 operation; paths are JSON pointers (`~1` escapes a slash in a key). */
export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** Options of KubeClient.delete. */
export interface DeleteOptions extends NamespaceOption, SignalOption {
  /** Delete only if the object still has this uid / resourceVersion; otherwise a ConflictError. */
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  /** How dependents are garbage-collected; the server's default for the kind when unset. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  /** Grace period in seconds for a Pod's termination; 0 deletes immediately. */
  gracePeriodSeconds?: number | undefined;
  /** Server-side dry run: admission runs, nothing is deleted. */
  dryRun?: boolean | undefined;
}

/** Options of KubeClient.evict. */
export interface EvictOptions extends SignalOption {
  /** Delete options of the eviction, e.g. a grace period or uid precondition. */
  deleteOptions?: Omit<DeleteOptions, 'namespace' | 'signal'> | undefined;
  /** Server-side dry run: the PDB check runs, the pod stays. */
  dryRun?: boolean | undefined;
}

/**
 * The Kubernetes client port: the verbs controllers use, generic over the resource type. Failures
 * are KubeApiError subclasses (HTTP answers), KubeConnectionError (no answer) or
 * RequestAbortedError.
 */
export interface KubeClient {
  /** Reads one object (or its subresource); a missing one is a NotFoundError. */
  get<T extends KubeObject>(rt: ResourceType, name: string, opts?: GetOptions): Promise<T>;
  /** One page; follow metadata.continue (or use listAll) for the rest. */
  list<T extends KubeObject>(rt: ResourceType, opts?: ListOptions): Promise<ObjectList<T>>;
  /** Ends when the server closes the stream or the signal aborts; throws on HTTP errors. */
  watch<T extends KubeObject>(rt: ResourceType, opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /**
   * Creates the object; the namespace comes from opts or the object's metadata. An existing name is
   * an AlreadyExistsError.
   */
  create<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT; metadata.resourceVersion in obj is an optimistic-concurrency precondition. */
  update<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  /** Server-side apply (application/apply-patch+yaml; JSON is valid YAML). */
  apply<T extends KubeObject>(rt: ResourceType, obj: T, opts: ApplyOptions): Promise<T>;
  /**
   * Patches the named object; a stale `resourceVersion` in the patch is a ConflictError, a missing
   * object a NotFoundError.
   */
  patch<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    patch: KubePatch,
    opts?: WriteOptions,
  ): Promise<T>;
  /**
   * Deletes the named object; a missing one is a NotFoundError, a failed precondition a
   * ConflictError.
   */
  delete(rt: ResourceType, name: string, opts?: DeleteOptions): Promise<void>;
  /** policy/v1 Eviction of a Pod; a PDB refusal surfaces as TooManyRequestsError. */
  evict(namespace: string, podName: string, opts?: EvictOptions): Promise<void>;
}
