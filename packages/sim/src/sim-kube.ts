// SimKube: a SIMULATED Kubernetes API in memory, enough of the KubeClient port for the
// standalone controller's reconciler, with the semantics it relies on: a resourceVersion on
// every object (one counter, like etcd's revision), 409 Conflict on a write whose
// resourceVersion precondition is stale, uid preconditions (a patch body's metadata.uid, a
// delete's preconditions.uid), 404 for kinds that are not installed (kured's DaemonSet, the
// NodeMaintenance CRD). Fault switches: a whole-apiserver outage (every call throws a
// connection error), request timeouts (a write may be applied before its reply is lost), and
// conflict injection (another writer bumps the object just before our write).
// It is a model, not an apiserver: only the verbs and kinds the reconciler uses; no watch
// (the scheduler mirrors changes into the cache itself), no field managers, no admission.
import {
  AlreadyExistsError,
  ConflictError,
  KubeConnectionError,
  NotFoundError,
  ServerTimeoutError,
  RequestAbortedError,
  type DeleteOptions,
  type EvictOptions,
  type GetOptions,
  type KubeClient,
  type KubeNode,
  type KubeObject,
  type KubePatch,
  type ListOptions,
  type ObjectList,
  type ResourceType,
  type WriteOptions,
} from '@noderepair/core/kube';
import { mergePatch } from './merge-patch.js';

/** The fault switches of the simulated apiserver; the scheduler flips them. */
export interface KubeFaults {
  /** Every call throws a connection error (apiserver down, or unreachable). */
  outage: boolean;
  /** Probability that a call times out (a write is applied first half of the time). */
  timeoutRate: number;
  /** Probability that another writer bumps the object just before our conditional write. */
  conflictRate: number;
}

/** What SimKube tells the world when a Node changes (the informer's event). */
export type NodeChange = (name: string, node: KubeNode | undefined) => void;

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status' as const,
  code,
  reason,
  message,
});

/** A SIMULATED apiserver holding objects in memory (see the file's header for what it models). */
export class SimKube implements KubeClient {
  private rv = 1;
  private uids = 0;
  private readonly objects = new Map<string, KubeObject>();
  readonly faults: KubeFaults = { outage: false, timeoutRate: 0, conflictRate: 0 };
  /** Calls refused by an outage or a timeout, by verb (what the run report counts). */
  readonly refused: Record<string, number> = {};
  private readonly listeners: NodeChange[] = [];

  /**
   * The kubelets' Leases in kube-node-lease, renewed every 10 s while they run: answered from
   * the world at read time instead of 8,640 writes per node-day. Undefined: no Lease.
   */
  nodeLease: (node: string) => KubeObject | undefined = () => undefined;

  /** Whether a pod marked for deletion goes at once (its kubelet is up); the world sets it. */
  kubeletConfirms: (pod: KubeObject) => boolean = () => true;

  /**
   * Called just before one of the controller's writes to a Node is applied (a patch, an
   * update, a delete), with what it writes: `state` (a body that touches only metadata: the
   * repair state's annotation) or `spec` (a cordon, a taint). A scheduled Node replacement
   * lands here, between the controller's read and its write (world.ts).
   */
  beforeNodeWrite: (name: string, what: 'state' | 'spec' | 'delete') => void = () => undefined;

  /** Told of every eviction the API admits (the world records the drain's evictions). */
  onEvict: (pod: KubeObject) => void = () => undefined;

  /**
   * A pod deleted (or evicted) with gracePeriodSeconds 0: removed at once, whatever its
   * kubelet says. The world records it with its truth and removes it.
   */
  onForceDelete: (pod: KubeObject) => void = () => undefined;

  /** `rand` is the run's PRNG (timeouts and injected conflicts are drawn from it). */
  constructor(
    private readonly rand: () => number,
    private readonly now: () => number,
  ) {}

  /** Calls `f` after every change of a Node (create, patch, delete), synchronously. */
  onNodeChange(f: NodeChange): void {
    this.listeners.push(f);
  }

  /** The stored object, for the world's own reads (never faulted). */
  peek<T extends KubeObject>(kind: string, name: string, namespace?: string): T | undefined {
    const o = this.objects.get(key(kind, name, namespace));
    return o === undefined ? undefined : (structuredClone(o) as T);
  }

  /** Writes an object as another actor would (a kubelet's status post): never faulted. */
  put<T extends KubeObject>(kind: string, obj: T): T {
    const meta = obj.metadata ?? {};
    const k = key(kind, meta.name ?? '', meta.namespace);
    const prev = this.objects.get(k);
    const uid = prev?.metadata?.uid ?? meta.uid ?? `uid-${++this.uids}`;
    const stored = {
      ...obj,
      metadata: { ...meta, uid, resourceVersion: String(++this.rv) },
    } as T;
    this.objects.set(k, stored);
    if (kind === 'Node') this.emit(meta.name ?? '', stored as KubeNode);
    return structuredClone(stored);
  }

  private emit(name: string, n: KubeNode | undefined): void {
    for (const f of this.listeners) f(name, n === undefined ? undefined : structuredClone(n));
  }

  /** Throws what the fault switches say for this call before it reaches the store. */
  private gate(verb: string, what: string, signal?: AbortSignal): void {
    // The port's promise: a call whose signal is already aborted sends nothing (a crashed or
    // deposed controller writes nothing more).
    if (signal?.aborted === true) throw new RequestAbortedError(`${verb} ${what}`);
    if (this.faults.outage) {
      this.refused[verb] = (this.refused[verb] ?? 0) + 1;
      throw new KubeConnectionError(`${verb} ${what}: connect ECONNREFUSED (simulated outage)`);
    }
  }

  /** A timeout drawn for this call: 'before' (nothing applied), 'after' (applied, reply lost). */
  private timeout(verb: string): 'before' | 'after' | undefined {
    if (this.faults.timeoutRate <= 0 || this.rand() >= this.faults.timeoutRate) return undefined;
    this.refused[verb] = (this.refused[verb] ?? 0) + 1;
    return verb !== 'get' && verb !== 'list' && this.rand() < 0.5 ? 'after' : 'before';
  }

  private timedOut(verb: string, what: string): ServerTimeoutError {
    return new ServerTimeoutError(
      status(504, 'Timeout', `${verb} ${what}: the request timed out (simulated)`),
    );
  }

  /** A write that may time out before or after it is applied. */
  private write<T>(verb: string, what: string, apply: () => T, signal?: AbortSignal): T {
    this.gate(verb, what, signal);
    const to = this.timeout(verb);
    if (to === 'before') throw this.timedOut(verb, what);
    const r = apply();
    if (to === 'after') throw this.timedOut(verb, what);
    return r;
  }

  async get<T extends KubeObject>(rt: ResourceType, name: string, opts?: GetOptions): Promise<T> {
    this.gate('get', `${rt.kind} ${name}`, opts?.signal);
    if (this.timeout('get') !== undefined) throw this.timedOut('get', `${rt.kind} ${name}`);
    const o =
      rt.kind === 'Lease' && opts?.namespace === 'kube-node-lease'
        ? this.nodeLease(name)
        : this.objects.get(key(rt.kind, name, opts?.namespace));
    if (o === undefined) throw notFound(rt, name);
    return structuredClone(o) as T;
  }

  async list<T extends KubeObject>(rt: ResourceType, opts?: ListOptions): Promise<ObjectList<T>> {
    this.gate('list', rt.plural, opts?.signal);
    if (this.timeout('list') !== undefined) throw this.timedOut('list', rt.plural);
    // Custom resources nobody installed here (NodeMaintenance): the CRD is missing.
    if (rt.group !== '' && rt.group !== 'coordination.k8s.io' && rt.group !== 'batch')
      throw notFound(rt, '');
    const items = [...this.objects.entries()]
      .filter(([k]) =>
        // No namespace: all of them (or a cluster-scoped kind).
        opts?.namespace === undefined
          ? k.startsWith(`${rt.kind}|`)
          : k.startsWith(`${rt.kind}|${opts.namespace}|`),
      )
      .map(([, o]) => structuredClone(o) as T)
      .filter((o) => matchesNodeName(o, opts?.fieldSelector));
    return { items, metadata: { resourceVersion: String(this.rv) } } as ObjectList<T>;
  }

  watch(): AsyncIterable<never> {
    throw new Error('SimKube has no watch: the scheduler mirrors changes into the cache');
  }

  async create<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    const name = obj.metadata?.name ?? '';
    const namespace = opts?.namespace ?? obj.metadata?.namespace;
    return this.write(
      'create',
      `${rt.kind} ${name}`,
      () => {
        if (rt.kind === 'Namespace') return structuredClone(obj);
        if (this.objects.has(key(rt.kind, name, namespace)))
          throw new AlreadyExistsError(
            status(409, 'AlreadyExists', `${rt.kind} "${name}" already exists`),
          );
        return this.put(rt.kind, { ...obj, metadata: { ...obj.metadata, namespace } });
      },
      opts?.signal,
    );
  }

  async update<T extends KubeObject>(rt: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    const name = obj.metadata?.name ?? '';
    const namespace = opts?.namespace ?? obj.metadata?.namespace;
    return this.write(
      'update',
      `${rt.kind} ${name}`,
      () => {
        const k = key(rt.kind, name, namespace);
        if (rt.kind === 'Node') this.beforeNodeWrite(name, 'spec');
        this.maybeBump(k);
        const cur = this.objects.get(k);
        if (cur === undefined) throw notFound(rt, name);
        const want = obj.metadata?.resourceVersion;
        if (want !== undefined && want !== cur.metadata?.resourceVersion) throw conflict(rt, name);
        return this.put(rt.kind, { ...obj, metadata: { ...obj.metadata, namespace } });
      },
      opts?.signal,
    );
  }

  apply<T extends KubeObject>(): Promise<T> {
    return Promise.reject(new Error('SimKube: apply is not used by the reconciler'));
  }

  async patch<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    p: KubePatch,
    opts?: WriteOptions,
  ): Promise<T> {
    return this.write(
      'patch',
      `${rt.kind} ${name}`,
      () => {
        if (p.type === 'json')
          throw new Error('SimKube: JSON patches are not used by the reconciler');
        const k = key(rt.kind, name, opts?.namespace);
        if (rt.kind === 'Node') this.beforeNodeWrite(name, specOrState(p.body));
        if (p.resourceVersion !== undefined) this.maybeBump(k);
        const cur = this.objects.get(k);
        if (cur === undefined) throw notFound(rt, name);
        if (p.resourceVersion !== undefined && p.resourceVersion !== cur.metadata?.resourceVersion)
          throw conflict(rt, name);
        const body = p.body as { metadata?: { uid?: string } };
        if (body.metadata?.uid !== undefined && body.metadata.uid !== cur.metadata?.uid)
          throw new ConflictError(
            status(
              409,
              'Conflict',
              `Precondition failed: UID in precondition: ${body.metadata.uid}, UID in object meta: ${cur.metadata?.uid}`,
            ),
          );
        const next = mergePatch(cur as Record<string, unknown>, p.body, p.type === 'strategic');
        return this.put(rt.kind, next as T);
      },
      opts?.signal,
    );
  }

  async delete(rt: ResourceType, name: string, opts?: DeleteOptions): Promise<void> {
    this.write(
      'delete',
      `${rt.kind} ${name}`,
      () => {
        const k = key(rt.kind, name, opts?.namespace);
        if (rt.kind === 'Node') this.beforeNodeWrite(name, 'delete');
        const cur = this.objects.get(k);
        if (cur === undefined) throw notFound(rt, name);
        const pre = opts?.preconditions;
        if (
          (pre?.uid !== undefined && pre.uid !== cur.metadata?.uid) ||
          (pre?.resourceVersion !== undefined &&
            pre.resourceVersion !== cur.metadata?.resourceVersion)
        )
          throw conflict(rt, name);
        if (rt.kind === 'Pod') return this.deletePod(k, cur, opts?.gracePeriodSeconds);
        this.objects.delete(k);
        if (rt.kind === 'Node') this.emit(name, undefined);
      },
      opts?.signal,
    );
  }

  /**
   * policy/v1 Eviction: no PodDisruptionBudgets here, so every eviction is admitted: the pod
   * gets a deletionTimestamp and goes when its kubelet confirms (`onEvicted` says whether it
   * can now), else stays Terminating on the node.
   */
  async evict(namespace: string, podName: string, opts?: EvictOptions): Promise<void> {
    this.write(
      'evict',
      `Pod ${namespace}/${podName}`,
      () => {
        const k = key('Pod', podName, namespace);
        const pod = this.objects.get(k);
        if (pod === undefined) throw notFound({ plural: 'pods' } as ResourceType, podName);
        const grace = opts?.deleteOptions?.gracePeriodSeconds;
        if (pod.metadata?.deletionTimestamp !== undefined && grace !== 0) return;
        this.onEvict(pod);
        this.deletePod(k, pod, grace);
      },
      opts?.signal,
    );
  }

  /**
   * A pod's deletion: with gracePeriodSeconds 0 it is forced (gone at once, recorded by the
   * world); otherwise it gets a deletionTimestamp and goes when its kubelet confirms, else
   * stays Terminating on the node.
   */
  private deletePod(k: string, pod: KubeObject, grace: number | undefined): void {
    if (grace === 0) {
      this.onForceDelete(pod);
      this.objects.delete(k);
      return;
    }
    if (pod.metadata?.deletionTimestamp !== undefined) return;
    const marked = this.put('Pod', {
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: new Date(this.now()).toISOString() },
    });
    if (this.kubeletConfirms(marked)) this.objects.delete(k);
  }

  /** Deletes a Node as another actor would (a person's `kubectl delete node`): never faulted. */
  removeNode(name: string): void {
    if (!this.objects.delete(key('Node', name))) return;
    this.emit(name, undefined);
  }

  /** Deletes an object as another actor would (a kubelet, the pod GC): never faulted. */
  remove(kind: string, name: string, namespace?: string): void {
    this.objects.delete(key(kind, name, namespace));
  }

  /** The stored objects of a kind (the world's own reads). */
  all<T extends KubeObject>(kind: string): T[] {
    return [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${kind}|`))
      .map(([, o]) => structuredClone(o) as T);
  }

  /** Conflict injection: another writer (a kubelet's status post) lands just before ours. */
  private maybeBump(k: string): void {
    if (this.faults.conflictRate <= 0 || this.rand() >= this.faults.conflictRate) return;
    const cur = this.objects.get(k);
    if (cur === undefined) return;
    this.refused['conflict'] = (this.refused['conflict'] ?? 0) + 1;
    this.put(k.split('|')[0]!, cur);
  }
}

/** What a patch body of a Node writes: only metadata (the state annotation), or more. */
function specOrState(body: unknown): 'state' | 'spec' {
  const keys = Object.keys((body ?? {}) as object);
  return keys.every((k) => k === 'metadata') ? 'state' : 'spec';
}

function matchesNodeName(o: KubeObject, selector: string | undefined): boolean {
  const m = /^spec\.nodeName=(.+)$/.exec(selector ?? '');
  return m === null || (o as { spec?: { nodeName?: string } }).spec?.nodeName === m[1];
}

function key(kind: string, name: string, namespace?: string): string {
  return `${kind}|${namespace ?? ''}|${name}`;
}

function notFound(rt: ResourceType, name: string): NotFoundError {
  return new NotFoundError(status(404, 'NotFound', `${rt.plural} "${name}" not found`));
}

function conflict(rt: ResourceType, name: string): ConflictError {
  return new ConflictError(
    status(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${rt.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    ),
  );
}
