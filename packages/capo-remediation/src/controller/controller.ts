// Wires the reconciler into a core Manager: an informer on OpenStackRemediations (the primary
// resource) and Node informers, mapped back to the remediations whose Machine points at them,
// so a node coming back is seen at once rather than at the next requeue. Nodes are watched in
// the management cluster (self-hosted clusters) and in each workload cluster a remediation
// reaches through Cluster API's kubeconfig Secret (see workload-clusters.ts).
import {
  NodeResource,
  type KubeClient,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { EventRecorder, type Manager } from '@noderepair/core/runtime';
import type { CloudConfig, OpenStackClient } from '@noderepair/openstack';
import { RemediationMetrics } from './metrics.js';
import { NodeSources } from './node-sources.js';
import { RemediationReconciler } from './reconciler.js';
import { OpenStackRemediationResource } from './resources.js';
import type { DefaultIdentity } from './target.js';
import { RecentSecrets } from './recent-secrets.js';
import { WorkloadClusters, type WorkloadClusterAccess } from './workload-clusters.js';

/** The controller's name on the manager: its work queue, logs and metrics carry it. */
export const CONTROLLER_NAME = 'openstackremediation';
/** reportingController of the Events the controller records (events.k8s.io/v1). */
export const REPORTING_CONTROLLER = 'remediation.noderepair.dev/capo-remediation';

/** What {@link addRemediationController} needs; only `client` and `identity` are required. */
export interface RemediationControllerOptions {
  /** Client of the management cluster, where the remediations, Machines and Secrets live. */
  readonly client: KubeClient;
  /** Watch only this namespace (default: all). */
  readonly namespace?: string | undefined;
  /** Pod name, for events. */
  readonly identity: string;
  /** Remediations reconciled in parallel (default 4). */
  readonly concurrency?: number;
  /** Makes the Keystone + Nova client for a cloud; by default the real HTTP client (tests pass a fake's). */
  readonly openStackClient?: (cloud: CloudConfig) => OpenStackClient;
  /** Identity Secret used for Machines without an OpenStackMachine (and so no identityRef). */
  readonly defaultIdentity?: DefaultIdentity | undefined;
  /** Milliseconds between checks of a running drain (eviction progress). */
  readonly drainPollIntervalMs?: number;
  /** Where Machines' Nodes are read and drained (default auto: kubeconfig Secret, else here). */
  readonly workloadClusterAccess?: WorkloadClusterAccess;
}

export type RawOsr = KubeObject & { status?: { serverID?: string; phase?: string } };

export interface OsrView {
  metadata: { name: string; namespace?: string; resourceVersion?: string; generation?: number };
  serverID: string | undefined;
  phase: string | undefined;
  deleting: boolean;
}

/** What the controller caches of each remediation: its key, what maps Nodes to it, what wakes it. */
export function osrView(o: RawOsr): OsrView {
  return {
    metadata: {
      name: o.metadata?.name ?? '',
      ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
      ...(o.metadata?.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
      ...(o.metadata?.generation !== undefined ? { generation: o.metadata.generation } : {}),
    },
    serverID: o.status?.serverID,
    phase: o.status?.phase,
    deleting: o.metadata?.deletionTimestamp != null,
  };
}

/**
 * A remediation's own status writes do not wake it again: every reconcile returns when to look
 * next, and a wake-up would only re-read it (5-6 GETs) to decide "wait". A spec edit (generation)
 * or the start of a deletion does wake it.
 */
export const osrChangedForReconcile = {
  update: (old: OsrView, cur: OsrView) =>
    old.metadata.generation !== cur.metadata.generation || old.deleting !== cur.deleting,
};

/** What the controller caches of each Node: enough to map it to remediations and to notice a return. */
export interface NodeKeyView {
  metadata: { name: string; resourceVersion?: string };
  providerID: string | undefined;
  ready: string | undefined;
  bootID: string | undefined;
}

/** Heartbeats rewrite Node status often; only what the decision reads wakes a remediation. */
const nodeChangedForRemediation = {
  update: (old: NodeKeyView, cur: NodeKeyView) =>
    old.ready !== cur.ready || old.bootID !== cur.bootID || old.providerID !== cur.providerID,
};

/** What {@link addRemediationController} registered, for tests and for wiring further checks. */
export interface RemediationController {
  /** The reconciler the controller runs. */
  readonly reconciler: RemediationReconciler;
  /** The remediation counters, registered on the manager's /metrics registry. */
  readonly metrics: RemediationMetrics;
  /** The workload-cluster connections the reconciler reads and drains Nodes through. */
  readonly clusters: WorkloadClusters<NodeKeyView>;
}

function nodeKeyView(n: KubeNode): NodeKeyView {
  return {
    metadata: {
      name: n.metadata?.name ?? '',
      ...(n.metadata?.resourceVersion ? { resourceVersion: n.metadata.resourceVersion } : {}),
    },
    providerID: n.spec?.providerID,
    ready: n.status?.conditions?.find((c) => c.type === 'Ready')?.status,
    bootID: n.status?.nodeInfo?.['bootID'],
  };
}

/** Registers the OpenStackRemediation controller on the manager; start the manager to run it. */
export function addRemediationController(
  manager: Manager,
  opts: RemediationControllerOptions,
): RemediationController {
  const metrics = new RemediationMetrics(manager.metrics.registry);
  const events = new EventRecorder(opts.client, {
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: opts.identity,
    logger: manager.log,
  });
  const access = opts.workloadClusterAccess ?? 'auto';
  // Nodes are mapped to remediations by the server uuid in their providerID (the same uuid
  // the remediation records in status.serverID): no Machine lookups in the event path. The
  // management cluster's own Nodes are watched unless they can never be a Machine's.
  const managementNodes =
    access === 'kubeconfig-secret'
      ? []
      : [
          manager.informer<KubeNode, NodeKeyView>(opts.client, NodeResource, {
            transform: nodeKeyView,
          }),
        ];
  const nodes = new NodeSources<NodeKeyView>(managementNodes);
  // One read of each Secret per recheck window, for the identity and the kubeconfig alike.
  const secrets = new RecentSecrets(opts.client);
  const clusters = new WorkloadClusters<NodeKeyView>({
    management: opts.client,
    access,
    log: manager.log,
    watchNodes: { sources: nodes, transform: nodeKeyView },
    secrets,
  });
  const reconciler = new RemediationReconciler({
    client: opts.client,
    clusters,
    secrets,
    events,
    log: manager.log,
    metrics,
    ...(opts.openStackClient ? { openStackClient: opts.openStackClient } : {}),
    ...(opts.defaultIdentity ? { defaultIdentity: opts.defaultIdentity } : {}),
    ...(opts.drainPollIntervalMs !== undefined
      ? { drainPollIntervalMs: opts.drainPollIntervalMs }
      : {}),
  });
  const osrs = manager.informer<RawOsr, OsrView>(opts.client, OpenStackRemediationResource, {
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    transform: osrView,
    indexers: { serverID: (o: OsrView) => (o.serverID ? [o.serverID] : []) },
  });
  manager
    .controller({
      name: CONTROLLER_NAME,
      concurrency: opts.concurrency ?? 4,
      maxResyncIntervalMs: 10 * 60_000,
      reconcile: reconciler.reconcile,
    })
    .for(osrs, [osrChangedForReconcile])
    .watch(
      nodes,
      (n: NodeKeyView) => {
        const uuid = n.providerID?.split('/').at(-1)?.toLowerCase();
        if (!uuid) return [];
        return osrs
          .byIndex('serverID', uuid)
          .filter((o) => o.phase !== 'Succeeded' && o.phase !== 'Failed')
          .map((o) => ({
            name: o.metadata.name,
            ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
          }));
      },
      [nodeChangedForRemediation],
    );
  manager.add({
    name: 'openstack-clients',
    needLeaderElection: false,
    start: async (signal) => {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      clusters.close();
      await reconciler.close();
    },
  });
  return { reconciler, metrics, clusters };
}
