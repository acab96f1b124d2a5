// Reads where the other actors keep their marks (kured's DaemonSet, NodeMaintenances, the
// medik8s node leases), once per fleet pass, and turns them into each node's holds with the
// pure actors.ts. Three requests however large the fleet; only the passes that may admit a
// repair pay them (a node that does not want to start never gets here).
//
// An actor that is not installed (no DaemonSet, no NodeMaintenance CRD, no lease or upgrade
// namespace: a 404) holds nothing. A mark we may not read (403: RBAC missing) is a hold on
// every node that wants a repair, named "Unreadable" with the missing permission, and so is a
// mark we read but cannot understand (a garbled kured lock): repairing blind could collide
// with the very actor the policy asked us to respect (kured may be rebooting the node). Any
// other error (a timeout, 5xx, 429, a connection refused, 401) propagates, so the fleet pass
// and its reconcile fail and are retried, no repair starts: an apiserver outage is waiting,
// never "not installed". The coordinator logs each problem once when it appears.
import type { KubeClient } from '../kube/client.js';
import { ForbiddenError, NotFoundError } from '../kube/errors.js';
import { customResource, LeaseResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import {
  actorHolds,
  kuredLockUnreadable,
  LabelSystemUpgradeNode,
  type ActorHold,
  type JobSnapshot,
  type LeaseSnapshot,
  type NodeMaintenanceSnapshot,
} from '../health/actors.js';
import { kuredDaemonSetRef, type CoordinationPolicy } from '../health/coordination-policy.js';
import type { NodeSnapshot } from '../health/node.js';
import { LegacyDisruptionLeaseHolder } from './lease-keeper.js';

/** apps/v1 DaemonSets: kured keeps its reboot lock as an annotation on its own. */
export const DaemonSetResource = customResource({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  namespaced: true,
});

/** batch/v1 Jobs: system-upgrade-controller upgrades a node in one. */
export const JobResource = customResource({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  namespaced: true,
});

/** medik8s' nodemaintenance.medik8s.io/v1beta1 NodeMaintenance (cluster-scoped). */
export const NodeMaintenanceResource = customResource({
  group: 'nodemaintenance.medik8s.io',
  version: 'v1beta1',
  kind: 'NodeMaintenance',
  namespaced: false,
});

/** What one read of the other actors' marks saw. */
export interface ActorSnapshot {
  /**
   * kured DaemonSet's annotations (its reboot lock lives there); absent when kured is not watched
   * or not installed.
   */
  kuredDaemonSetAnnotations?: Record<string, string>;
  /**
   * medik8s NodeMaintenances, all of them; absent when not watched, not installed or not readable.
   */
  nodeMaintenances?: readonly NodeMaintenanceSnapshot[];
  /** medik8s node leases by lease name (`node-<node>`). */
  leases: ReadonlyMap<string, LeaseSnapshot>;
  /** system-upgrade-controller's upgrade Jobs. */
  upgradeJobs?: readonly JobSnapshot[];
  /** Marks we were not allowed to read, each naming the permission that is missing. */
  forbidden: string[];
}

async function orAbsent<T>(
  read: () => Promise<T>,
  forbidden: string[],
  what: string,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof NotFoundError) return undefined;
    if (e instanceof ForbiddenError) {
      forbidden.push(`missing permission: ${what}`);
      return undefined;
    }
    throw e;
  }
}

/** Reads the marks of the actors `c` lists (only those: an unlisted actor costs nothing). */
export async function readActorSnapshot(
  client: KubeClient,
  c: CoordinationPolicy,
  signal?: AbortSignal,
): Promise<ActorSnapshot> {
  const forbidden: string[] = [];
  const opt = signal !== undefined ? { signal } : {};
  const snap: {
    kuredDaemonSetAnnotations?: Record<string, string>;
    nodeMaintenances?: readonly NodeMaintenanceSnapshot[];
    upgradeJobs?: readonly JobSnapshot[];
    leases: Map<string, LeaseSnapshot>;
    forbidden: string[];
  } = { leases: new Map(), forbidden };
  if (c.actors.includes('Kured')) {
    const { namespace, name } = kuredDaemonSetRef(c);
    const ds = await orAbsent(
      () => client.get<KubeObject>(DaemonSetResource, name, { namespace, ...opt }),
      forbidden,
      `get daemonsets ${namespace}/${name} (kured's lock)`,
    );
    const annotations = ds?.metadata?.annotations;
    if (annotations !== undefined) snap.kuredDaemonSetAnnotations = annotations;
  }
  if (c.actors.includes('NodeMaintenance')) {
    const list = await orAbsent(
      () => client.list<KubeObject & NodeMaintenanceSnapshot>(NodeMaintenanceResource, opt),
      forbidden,
      'list nodemaintenances.nodemaintenance.medik8s.io',
    );
    if (list !== undefined) snap.nodeMaintenances = list.items;
  }
  if (c.actors.includes('Medik8sLease')) {
    const namespace = c.medik8sLease.namespace;
    const list = await orAbsent(
      () => client.list<KubeObject & LeaseSnapshot>(LeaseResource, { namespace, ...opt }),
      forbidden,
      `list leases in namespace ${namespace}`,
    );
    for (const l of list?.items ?? []) {
      const name = l.metadata?.name;
      if (name !== undefined) snap.leases.set(name, l);
    }
  }
  if (c.actors.includes('SystemUpgrade')) {
    const namespace = c.systemUpgrade.namespace;
    const list = await orAbsent(
      () =>
        client.list<KubeObject & JobSnapshot>(JobResource, {
          namespace,
          labelSelector: LabelSystemUpgradeNode,
          ...opt,
        }),
      forbidden,
      `list jobs in namespace ${namespace} (system-upgrade-controller)`,
    );
    if (list !== undefined) snap.upgradeJobs = list.items;
  }
  return snap;
}

/**
 * What this snapshot could not read or understand, for every node alike: the forbidden reads
 * and a kured lock that does not parse. Each is an Unreadable hold (holdsFromSnapshot); this
 * is the list to log and show once.
 */
export function snapshotProblems(snap: ActorSnapshot, c: CoordinationPolicy): string[] {
  const kured = c.actors.includes('Kured')
    ? kuredLockUnreadable(snap.kuredDaemonSetAnnotations, c)
    : undefined;
  return [...snap.forbidden, ...(kured !== undefined ? [kured] : [])];
}

/**
 * Who is "us" in `nodeName`'s disruption lease: `ours`, or the legacy holder `noderepair` when
 * that is who holds it and our own state says a repair of ours is in flight there (this
 * install, before an upgrade, took it for that repair). A legacy lease on a node we are not
 * repairing may be another install's: it holds, until it lapses.
 */
export function ourLeaseHolderFor(
  snap: ActorSnapshot,
  nodeName: string,
  inFlight: boolean,
  ours: string,
): string {
  const holder = snap.leases.get(`node-${nodeName}`.toLowerCase())?.spec?.holderIdentity;
  return inFlight && holder === LegacyDisruptionLeaseHolder ? LegacyDisruptionLeaseHolder : ours;
}

/**
 * One node's holds from a snapshot. `ourLeaseIdentity`: a lease we hold is ours, not a hold.
 * A forbidden read, or a mark we cannot understand (actorHolds' problems), is a hold named
 * Unreadable, not disrupting (it counts nothing in flight).
 */
export function holdsFromSnapshot(
  snap: ActorSnapshot,
  c: CoordinationPolicy,
  node: { name: string; node: NodeSnapshot | undefined; cordonedByUs: boolean },
  ourLeaseIdentity: string,
  now: number,
): ActorHold[] {
  const lease = snap.leases.get(`node-${node.name}`.toLowerCase());
  const report = actorHolds(
    {
      nodeName: node.name,
      node: node.node,
      cordonedByUs: node.cordonedByUs,
      ...(snap.kuredDaemonSetAnnotations !== undefined
        ? { kuredDaemonSetAnnotations: snap.kuredDaemonSetAnnotations }
        : {}),
      ...(snap.nodeMaintenances !== undefined ? { nodeMaintenances: snap.nodeMaintenances } : {}),
      ...(snap.upgradeJobs !== undefined ? { upgradeJobs: snap.upgradeJobs } : {}),
      ...(lease !== undefined ? { medik8sLease: lease } : {}),
      ourLeaseIdentity,
    },
    c,
    now,
  );
  // A mark we may not read, or cannot understand: held, not disrupting (it counts nothing
  // in flight), and named, so the Event and `noderepair status` say what to fix.
  const unreadable = [...snap.forbidden, ...report.problems].map(
    (detail): ActorHold => ({ actor: 'Unreadable', detail, disrupting: false }),
  );
  return [...report.holds, ...unreadable];
}
