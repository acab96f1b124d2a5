// Is another actor disrupting this node? Pure: the caller reads the objects (kured's
// DaemonSet, NodeMaintenances, the medik8s node lease) and passes them in with the clock.
// A hold means "do not start a repair now; look again later", never a failed attempt.
// Formats are those of the actors' public sources (see docs: kured daemonsetlock, medik8s
// common/pkg/lease, node-maintenance-operator api/v1beta1, Cluster API common_types).
import * as either from 'fp-ts/lib/Either.js';
import type { ActorHold } from './actor-hold.js';
import type { ActorKind, CoordinationPolicy } from './coordination-policy.js';
import { hasTaint, type NodeSnapshot } from './node.js';
import { iso, toMillis, type TimeInput } from './time.js';

export type { ActorHold, HoldActor } from './actor-hold.js';

/** The part of a coordination.k8s.io/v1 Lease read here. */
export interface LeaseSnapshot {
  /**
   * The lease's name and namespace (for the hold's detail) and its resourceVersion (for a
   * precondition).
   */
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  /** Holder, duration and times; a lease we cannot date counts as held. */
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: TimeInput | null;
    renewTime?: TimeInput | null;
    leaseTransitions?: number | null;
  };
}

/** The part of a nodemaintenance.medik8s.io/v1beta1 NodeMaintenance read here. */
export interface NodeMaintenanceSnapshot {
  /** Its name and whether it is being deleted (it holds the node until it is gone). */
  metadata?: { name?: string; deletionTimestamp?: TimeInput };
  /** The node it is for, and why. */
  spec?: { nodeName?: string; reason?: string };
  /** Its phase (Running, Succeeded...); any phase holds. */
  status?: { phase?: string };
}

/** The part of a batch/v1 Job read here (system-upgrade-controller's upgrade Jobs). */
export interface JobSnapshot {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  status?: {
    completionTime?: TimeInput;
    conditions?: Array<{ type?: string; status?: string }>;
  };
}

/** The label system-upgrade-controller puts on the upgrade Job of a node. */
export const LabelSystemUpgradeNode = 'upgrade.cattle.io/node';
export const TaintKarpenterDisrupted = 'karpenter.sh/disrupted';

/** What the controller can see about one node and the actors around it. */
export interface ActorView {
  /** The Node's name. */
  nodeName: string;
  /** The Node as read; undefined when it is gone. */
  node: NodeSnapshot | undefined;
  /** True when noderepair's own repair cordoned the node (Remediation.cordoned). */
  cordonedByUs: boolean;
  /** The annotations of kured's DaemonSet (coordination.kured.daemonSet); absent: not read / none. */
  kuredDaemonSetAnnotations?: Record<string, string>;
  /** All NodeMaintenance objects (cluster-scoped); absent: the CRD is not installed or not read. */
  nodeMaintenances?: readonly NodeMaintenanceSnapshot[];
  /** The Lease `<medik8sLease.namespace>/node-<node>`; absent: there is none. */
  medik8sLease?: LeaseSnapshot;
  /** system-upgrade-controller's Jobs (labelled upgrade.cattle.io/node); absent: not read. */
  upgradeJobs?: readonly JobSnapshot[];
  /** Our own holder identity in medik8s leases: a lease we hold is no hold on us. */
  ourLeaseIdentity: string;
}

/** What actorHolds found on one node. */
export interface ActorReport {
  /** Every hold found, in the policy's actor order; empty: no other actor is disrupting the node. */
  holds: ActorHold[];
  /**
   * Marks we could not read (say a garbled kured lock). Not in `holds`: the controller and
   * `noderepair status` (holdsFromSnapshot) make each an Unreadable hold, and log them.
   */
  problems: string[];
}

/** The taint Cluster API puts on the Nodes of Machines a rollout replaces. */
export const TaintCapiOutdatedRevision = 'node.cluster.x-k8s.io/outdated-revision';
/** Set on a Node by Cluster API's machine controller: the name of its Machine. */
export const AnnotationCapiMachine = 'cluster.x-k8s.io/machine';

/** One kured lock: the node it names and when it lapses. */
export interface KuredLock {
  /** The node the lock is for; kured's `manual` pauses kured without naming a node. */
  nodeID: string;
  /** Epoch ms the lock lapses; absent: never (TTL 0 or missing, as in a hand-written lock). */
  expiresAt?: number;
}

/**
 * The locks in a kured lock annotation, single (`{nodeID, created, TTL}`, kured's default
 * --concurrency=1) or multi (`{maxOwners, locks: [...]}`). TTL is a Go time.Duration, so
 * nanoseconds; kured counts a lock expired only when TTL > 0 and now - created >= TTL.
 */
export function parseKuredLock(value: string): either.Either<string, KuredLock[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(value);
  } catch {
    return either.left('not JSON');
  }
  if (typeof doc !== 'object' || doc === null) return either.left('not a JSON object');
  const o = doc as Record<string, unknown>;
  const entries = Array.isArray(o['locks']) ? (o['locks'] as unknown[]) : [o];
  const locks: KuredLock[] = [];
  for (const e of entries) {
    const lock = readLock(e);
    if (either.isLeft(lock)) return lock;
    locks.push(lock.right);
  }
  return either.right(locks);
}

function readLock(e: unknown): either.Either<string, KuredLock> {
  if (typeof e !== 'object' || e === null) return either.left('a lock is not an object');
  const l = e as Record<string, unknown>;
  if (typeof l['nodeID'] !== 'string' || l['nodeID'] === '')
    return either.left('a lock has no nodeID');
  const ttlNs = l['TTL'] ?? 0;
  if (typeof ttlNs !== 'number' || !Number.isFinite(ttlNs) || ttlNs < 0)
    return either.left(`lock of ${l['nodeID']}: TTL is not a duration in nanoseconds`);
  if (ttlNs === 0) return either.right({ nodeID: l['nodeID'] });
  const created = typeof l['created'] === 'string' ? toMillis(l['created']) : undefined;
  // A TTL without a start cannot lapse: kured itself would read a zero time and call it
  // expired, but a lock we cannot date is safer treated as held.
  if (created === undefined) return either.right({ nodeID: l['nodeID'] });
  return either.right({ nodeID: l['nodeID'], expiresAt: created + ttlNs / 1e6 });
}

/** Epoch ms a medik8s lease lapses: renewTime (else acquireTime) + leaseDurationSeconds. */
export function leaseExpiresAt(lease: LeaseSnapshot): number | undefined {
  const s = lease.spec ?? {};
  const from = toMillis(s.renewTime ?? undefined) ?? toMillis(s.acquireTime ?? undefined);
  const secs = s.leaseDurationSeconds;
  if (from === undefined || typeof secs !== 'number') return undefined;
  return from + secs * 1000;
}

/**
 * Held by someone else: a holder that is not us, and not lapsed. Unlike medik8s (which takes
 * over a lease renewed "in the future"), a renewTime ahead of our clock is still held: that
 * is clock skew, and waiting is the safe side. A lease we cannot date is held.
 */
function leaseHold(
  lease: LeaseSnapshot | undefined,
  us: string,
  now: number,
): ActorHold | undefined {
  const holder = lease?.spec?.holderIdentity ?? '';
  if (lease === undefined || holder === '' || holder === us) return undefined;
  const until = leaseExpiresAt(lease);
  if (until !== undefined && now > until) return undefined;
  const where = `${lease.metadata?.namespace ?? '?'}/${lease.metadata?.name ?? '?'}`;
  return {
    actor: 'Medik8sLease',
    detail: `lease ${where} held by ${holder}${until !== undefined ? ` until ${iso(until)}` : ''}`,
    ...(until !== undefined ? { until } : {}),
    disrupting: true,
  };
}

function kuredLockProblem(c: CoordinationPolicy, why: string): string {
  return `kured lock ${c.kured.lockAnnotation} on daemonset ${c.kured.daemonSet} unreadable: ${why}`;
}

/** The kured lock annotation as read, when it is there and cannot be parsed: the problem. */
export function kuredLockUnreadable(
  annotations: Record<string, string> | undefined,
  c: CoordinationPolicy,
): string | undefined {
  const value = annotations?.[c.kured.lockAnnotation];
  if (value === undefined || value === '') return undefined;
  const parsed = parseKuredLock(value);
  return either.isLeft(parsed) ? kuredLockProblem(c, parsed.left) : undefined;
}

function kuredHold(
  v: ActorView,
  c: CoordinationPolicy,
  now: number,
  problems: string[],
): ActorHold | undefined {
  const value = v.kuredDaemonSetAnnotations?.[c.kured.lockAnnotation];
  if (value === undefined || value === '') return undefined;
  const parsed = parseKuredLock(value);
  if (either.isLeft(parsed)) {
    // A problem, which the caller turns into an Unreadable hold: a lock we cannot read may
    // name this very node, which kured may be rebooting. It stops every repair in the
    // cluster until a person fixes the annotation, as a forbidden read does, and says so.
    problems.push(kuredLockProblem(c, parsed.left));
    return undefined;
  }
  // Only the node the lock names: `{"nodeID":"manual"}` pauses kured, it disrupts nothing.
  const lock = parsed.right.find(
    (l) => l.nodeID === v.nodeName && (l.expiresAt === undefined || now < l.expiresAt),
  );
  if (lock === undefined) return undefined;
  return {
    actor: 'Kured',
    detail: `kured holds its reboot lock for this node (${c.kured.lockAnnotation} on daemonset ${c.kured.daemonSet})${lock.expiresAt !== undefined ? ` until ${iso(lock.expiresAt)}` : ''}`,
    ...(lock.expiresAt !== undefined ? { until: lock.expiresAt } : {}),
    disrupting: true,
  };
}

function maintenanceHold(v: ActorView): ActorHold | undefined {
  // Any phase, and while being deleted too: NMO uncordons and releases only on deletion.
  const nm = (v.nodeMaintenances ?? []).find((m) => m.spec?.nodeName === v.nodeName);
  if (nm === undefined) return undefined;
  const phase = nm.status?.phase ?? 'Running';
  const deleting = nm.metadata?.deletionTimestamp !== undefined ? ', being deleted' : '';
  return {
    actor: 'NodeMaintenance',
    detail: `NodeMaintenance ${nm.metadata?.name ?? '?'} (phase ${phase}${deleting})`,
    disrupting: true,
  };
}

function rolloutHold(v: ActorView): ActorHold | undefined {
  // Cluster API cordons the Node of a Machine it deletes (scale-down, remediation, rollout)
  // before it drains it; the Machine lives in the management cluster, the cordon is what a
  // workload cluster sees. A person's cordon of such a node holds it too: it is Cluster
  // API's node to replace, not ours to reboot.
  const machine = v.node?.metadata?.annotations?.[AnnotationCapiMachine];
  if (machine !== undefined && v.node?.spec?.unschedulable === true && !v.cordonedByUs)
    return {
      actor: 'ClusterAPIRollout',
      detail: `the node of Cluster API Machine ${machine} is cordoned: Cluster API cordons and drains a machine it deletes`,
      disrupting: true,
    };
  if (!hasTaint(v.node, TaintCapiOutdatedRevision)) return undefined;
  return {
    actor: 'ClusterAPIRollout',
    detail: `Cluster API is rolling out a new revision (taint ${TaintCapiOutdatedRevision}): the machine is to be replaced`,
    // Every old machine carries the taint for the whole rollout; only the one being drained
    // (cordoned) is out now. Counting them all would stop every repair during a rollout.
    disrupting: v.node?.spec?.unschedulable === true,
  };
}

function upgradeHold(v: ActorView): ActorHold | undefined {
  // Unfinished: neither completed nor failed. The Job cordons and drains the node itself
  // (plan.spec.cordon/drain) and may reboot it: the node is taken out while it runs.
  const job = (v.upgradeJobs ?? []).find(
    (j) =>
      j.metadata?.labels?.[LabelSystemUpgradeNode] === v.nodeName &&
      j.status?.completionTime === undefined &&
      !(j.status?.conditions ?? []).some(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      ),
  );
  if (job === undefined) return undefined;
  const plan = job.metadata?.labels?.['upgrade.cattle.io/plan'];
  return {
    actor: 'SystemUpgrade',
    detail: `system-upgrade-controller Job ${job.metadata?.namespace ?? '?'}/${job.metadata?.name ?? '?'}${plan !== undefined ? ` (plan ${plan})` : ''} is upgrading the node`,
    disrupting: true,
  };
}

function karpenterHold(v: ActorView): ActorHold | undefined {
  if (!hasTaint(v.node, TaintKarpenterDisrupted)) return undefined;
  return {
    actor: 'Karpenter',
    detail: `Karpenter is disrupting the node (taint ${TaintKarpenterDisrupted}): it is being drained to be removed or replaced`,
    disrupting: true,
  };
}

/**
 * The holds of a node whose repair a person asked for (the repair-now annotation): all but
 * ManualCordon. Cordoning a broken node and asking for its repair is one person's one wish;
 * the other actors' holds (a reboot lock, a maintenance, a rollout) still make it wait.
 */
export function withoutCordonHoldOnTrigger(holds: readonly ActorHold[]): readonly ActorHold[] {
  return holds.some((h) => h.actor === 'ManualCordon')
    ? holds.filter((h) => h.actor !== 'ManualCordon')
    : holds;
}

function cordonHold(v: ActorView): ActorHold | undefined {
  if (v.node?.spec?.unschedulable !== true || v.cordonedByUs) return undefined;
  return {
    actor: 'ManualCordon',
    detail: 'cordoned by someone else before noderepair touched it',
    disrupting: false,
  };
}

type Judge = (
  v: ActorView,
  c: CoordinationPolicy,
  now: number,
  problems: string[],
) => ActorHold | undefined;

/** One judge per actor: does this actor disrupt the node now? */
const judges: Record<ActorKind, Judge> = {
  Kured: kuredHold,
  NodeMaintenance: (v) => maintenanceHold(v),
  Medik8sLease: (v, _c, now) => leaseHold(v.medik8sLease, v.ourLeaseIdentity, now),
  ClusterAPIRollout: (v) => rolloutHold(v),
  ManualCordon: (v) => cordonHold(v),
  SystemUpgrade: (v) => upgradeHold(v),
  Karpenter: (v) => karpenterHold(v),
};

/** The holds other actors put on `v.nodeName`, for the actors the policy lists. */
export function actorHolds(v: ActorView, c: CoordinationPolicy, now: number): ActorReport {
  const problems: string[] = [];
  const holds: ActorHold[] = [];
  for (const actor of c.actors) {
    const h = judges[actor](v, c, now, problems);
    if (h !== undefined) holds.push(h);
  }
  return { holds, problems };
}
