// Which API server holds a Machine's Node. Cluster API runs the management cluster apart from
// the workload clusters whose Machines it manages: their Nodes are reached through the
// kubeconfig Cluster API publishes in Secret <cluster>-kubeconfig, as its own
// MachineHealthCheck does. One client (and one Node informer) per cluster is kept and reused
// until the Secret's content changes (resourceVersion) or the cluster goes unused for a while.
//
// access:
//   auto (default)     the Secret, required: a missing Secret, or a Machine without a cluster
//                      name, is a TargetResolved=False message, never a silent switch to the
//                      management cluster (whose Node of the same name may be another machine)
//   kubeconfig-secret  the same (the older, explicit name)
//   secret-or-management  the Secret when it exists, else the management cluster itself
//                      (self-hosted clusters): the fallback, only when asked for
//   management         always the management cluster (its Nodes are the workload's)
// Whatever the access, a Node is written to only when its providerID names the Machine's
// server (node-identity.ts).
import { kubeDrainPort, type DrainPort } from '@noderepair/core/drain';
import {
  createKubeClient,
  NodeResource,
  parseKubeConfig,
  type KubeClient,
  type KubeNode,
} from '@noderepair/core/kube';
import {
  createInformer,
  errorFields,
  type EventSource,
  systemClock,
  type Clock,
  type RuntimeLogger,
} from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import { kubeconfigFromSecret, kubeconfigSecretName } from '../capi/index.js';
import type { NodeSources } from './node-sources.js';
import { RecentSecrets } from './recent-secrets.js';

/**
 * The ways to reach a Machine's Nodes (--workload-cluster-access): `auto` and
 * `kubeconfig-secret` require Cluster API's kubeconfig Secret, `secret-or-management` falls back
 * to the management cluster (self-hosted clusters), `management` always uses it.
 */
export const WORKLOAD_CLUSTER_ACCESS = [
  'auto',
  'kubeconfig-secret',
  'secret-or-management',
  'management',
] as const;
/** One of {@link WORKLOAD_CLUSTER_ACCESS}. */
export type WorkloadClusterAccess = (typeof WORKLOAD_CLUSTER_ACCESS)[number];

/** How the Nodes of one Machine's cluster are read, drained and released. */
export interface NodeAccess {
  /** Client of the API server holding the Nodes. */
  readonly client: KubeClient;
  /** Cordons and drains Nodes through that client. */
  readonly drain: DrainPort;
  /** For messages and logs: "management cluster" or "workload cluster ns/name". */
  readonly via: string;
}

type ClosableClient = KubeClient & { close(): void };

/** How {@link WorkloadClusters} connects; `V` is the cached Node type when Nodes are watched. */
export interface WorkloadClustersOptions<V> {
  /** Client of the management cluster, where the kubeconfig Secrets live. */
  readonly management: KubeClient;
  /** Where Machines' Nodes are reached (default auto). */
  readonly access?: WorkloadClusterAccess;
  /** Logs connections and their failures. */
  readonly log: RuntimeLogger;
  /** Builds a client from kubeconfig text; default: core's kubeconfig loader and client. */
  readonly connect?: (kubeconfig: string) => ClosableClient;
  /** Watch each workload cluster's Nodes into these sources, cached through `transform`. */
  readonly watchNodes?: {
    readonly sources: NodeSources<V>;
    readonly transform: (n: KubeNode) => V;
  };
  /** Forget a cluster no remediation asked for in this long (default 30 min). */
  readonly idleMs?: number;
  /** core's Clock, for the idle timeout (default systemClock; tests pass a ManualClock). */
  readonly clock?: Clock;
  /**
   * Where the kubeconfig Secrets are read (each at most once per recheck window). Default: its
   * own RecentSecrets on `management` and `clock`.
   */
  readonly secrets?: RecentSecrets;
}

interface Entry {
  readonly resourceVersion: string;
  readonly access: NodeAccess;
  readonly client: ClosableClient;
  readonly stop: AbortController;
  readonly unwatch: () => void;
  lastUsed: number;
}

/**
 * One client (and Node informer) per workload cluster, built from Cluster API's kubeconfig
 * Secret and reused until the Secret changes or the cluster goes idle. Call close() on stop.
 */
export class WorkloadClusters<V = never> {
  /** The access mode in force (options.access, default auto). */
  readonly access: WorkloadClusterAccess;
  private readonly management: NodeAccess;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly secrets: RecentSecrets;
  private closed = false;

  constructor(private readonly opts: WorkloadClustersOptions<V>) {
    this.access = opts.access ?? 'auto';
    const clock = opts.clock ?? systemClock;
    this.now = () => clock.now();
    this.secrets = opts.secrets ?? new RecentSecrets(opts.management, { clock });
    this.management = {
      client: opts.management,
      drain: kubeDrainPort(opts.management),
      via: 'management cluster',
    };
  }

  /** The management cluster's access (where Nodes are read when no cluster is known). */
  get managementAccess(): NodeAccess {
    return this.management;
  }

  /** Clusters with a live client now. */
  get connected(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * Access to the Nodes of cluster `clusterName` in `namespace`. Left is a message for the
   * remediation's TargetResolved condition; errors other than NotFound (403, unreachable
   * management API) are thrown for the controller's backoff.
   */
  async nodeAccess(
    namespace: string,
    clusterName: string | undefined,
  ): Promise<E.Either<string, NodeAccess>> {
    this.sweep();
    if (this.access === 'management') return E.right(this.management);
    const fallback = this.access === 'secret-or-management';
    if (!clusterName) {
      return fallback
        ? E.right(this.management)
        : E.left(
            `the Machine names no cluster (spec.clusterName); cannot find its kubeconfig${this.hint()}`,
          );
    }
    const key = `${namespace}/${clusterName}`;
    const name = kubeconfigSecretName(clusterName);
    const secret = await this.secrets.get(namespace, name);
    if (secret === undefined) {
      this.forget(key);
      return fallback
        ? E.right(this.management)
        : E.left(
            `Secret ${namespace}/${name} not found: --workload-cluster-access=${this.access} reaches cluster ${clusterName}'s Nodes only through Cluster API's kubeconfig Secret${this.hint()}`,
          );
    }
    const rv = secret.metadata?.resourceVersion ?? '';
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.resourceVersion === rv) {
      cached.lastUsed = this.now();
      return E.right(cached.access);
    }
    const text = kubeconfigFromSecret(secret);
    const connected = E.isLeft(text)
      ? text
      : this.connect(text.right, `Secret ${namespace}/${name} key value`);
    if (E.isLeft(connected)) {
      this.secrets.forget(namespace, name); // read a fixed value at the next reconcile
      return connected;
    }
    const client = connected.right;
    this.forget(key); // the Secret changed: drop the client built from the old content
    if (this.closed) {
      client.close();
      throw new Error('workload cluster access is closed (controller stopping)');
    }
    const entry: Entry = {
      resourceVersion: rv,
      access: {
        client,
        drain: kubeDrainPort(client),
        via: `workload cluster ${key}`,
      },
      client,
      stop: new AbortController(),
      unwatch: () => {},
      lastUsed: this.now(),
    };
    this.entries.set(key, this.watch(key, entry));
    this.opts.log.info({ cluster: key, secret: name }, 'connected to workload cluster');
    return E.right(entry.access);
  }

  /** For a self-hosted cluster, the explicit way to the management cluster's Nodes. */
  private hint(): string {
    return this.access === 'auto'
      ? ' (a self-hosted cluster: set --workload-cluster-access=secret-or-management or management)'
      : '';
  }

  /** Stops every workload informer and closes every client. */
  close(): void {
    this.closed = true;
    for (const k of [...this.entries.keys()]) this.forget(k);
  }

  private connect(text: string, source: string): E.Either<string, ClosableClient> {
    const fallback = `${source} could not be loaded as a kubeconfig (expected a current-context with a cluster server and a user)`;
    try {
      if (this.opts.connect) return E.right(this.opts.connect(text));
      // Core's loader: its messages name fields, never values (tokens, keys).
      const cfg = parseKubeConfig(text, { source });
      return E.isLeft(cfg) ? cfg : E.right(createKubeClient(cfg.right));
    } catch {
      // A custom connect's message may quote the document (tokens, keys): never pass it on.
      return E.left(fallback);
    }
  }

  private watch(key: string, entry: Entry): Entry {
    const w = this.opts.watchNodes;
    if (w === undefined) return entry;
    const informer = createInformer<KubeNode, V>(entry.client, NodeResource, {
      name: `nodes@${key}`,
      transform: w.transform,
      logger: this.opts.log.child({ cluster: key }),
    });
    const unwatch = w.sources.add(informer as EventSource<V>);
    informer.run(entry.stop.signal).catch((e: unknown) => {
      if (!entry.stop.signal.aborted)
        this.opts.log.error({ cluster: key, ...errorFields(e) }, 'workload Node informer stopped');
    });
    return { ...entry, unwatch };
  }

  private forget(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    e.unwatch();
    e.stop.abort();
    e.client.close();
  }

  private sweep(): void {
    const idle = this.opts.idleMs ?? 30 * 60_000;
    const now = this.now();
    for (const [k, e] of this.entries) if (now - e.lastUsed > idle) this.forget(k);
  }
}
