// Our own per-node disruption lease, in medik8s' format (medik8s/common pkg/lease), so that
// NodeMaintenance and NodeHealthCheck leave a node we repair alone with no change on their
// side: a coordination.k8s.io/v1 Lease `<namespace>/node-<node>` (default medik8s-leases),
// owned by the Node, holderIdentity ours. Pure: what to write, and when; the port does I/O.
import { leaseExpiresAt, type LeaseSnapshot } from './actors.js';
import { iso } from './time.js';

/**
 * The Node a disruption lease is for; the lease is owned by it, so a deleted Node takes its lease
 * along.
 */
export interface NodeRef {
  /** The Node's name. */
  name: string;
  /** The Node's metadata.uid (the lease's ownerReference). */
  uid: string;
}

/** The Lease object as we write it. */
export interface DisruptionLease {
  /** Always coordination.k8s.io/v1. */
  apiVersion: 'coordination.k8s.io/v1';
  /** Always Lease. */
  kind: 'Lease';
  /** `node-<node>` in the lease namespace, owned by the Node; resourceVersion set on an update. */
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    ownerReferences: Array<{ apiVersion: 'v1'; kind: 'Node'; name: string; uid: string }>;
  };
  /**
   * Holder, duration in seconds, MicroTime acquire and renew times, and the number of takeovers.
   */
  spec: {
    holderIdentity: string;
    leaseDurationSeconds: number;
    acquireTime: string;
    renewTime: string;
    leaseTransitions: number;
  };
}

/** The I/O a lease keeper needs; updates and deletes carry resourceVersion (optimistic). */
export interface DisruptionLeasePort {
  /** The lease, or undefined when there is none. */
  get(namespace: string, name: string): Promise<LeaseSnapshot | undefined>;
  /** Creates the lease; fails if it exists already. */
  create(lease: DisruptionLease): Promise<void>;
  /** Replaces the lease; fails with a conflict when its resourceVersion is stale. */
  update(lease: DisruptionLease): Promise<void>;
  /** Deletes the lease only at `resourceVersion`. */
  delete(namespace: string, name: string, resourceVersion: string): Promise<void>;
}

/** What acquireOrRenew needs to take or renew the lease of one node. */
export interface LeaseRequest {
  /** The Node the lease is for. */
  node: NodeRef;
  /** Where the lease lives (the medik8s lease namespace). */
  namespace: string;
  /** e.g. `noderepair/<namespace>/<leader-election id>`: whose, readable by a person. */
  identity: string;
  /**
   * A former identity of ours (the legacy `noderepair`): a lease it holds is taken as ours and
   * rewritten to `identity`. Only for a repair our own state says is in flight.
   */
  adoptFrom?: string;
  /** How long the lease holds without a renewal, in seconds. */
  durationSeconds: number;
  /** The clock, in epoch milliseconds. */
  now: number;
}

/**
 * What acquireOrRenew says to do: create or update the lease, keep it as it is (ours and fresh), or
 * wait (held by someone else, until `until` epoch ms when known).
 */
export type LeaseStep =
  | { kind: 'create'; lease: DisruptionLease }
  /** Renew ours, or take over a lapsed or empty one (leaseTransitions + 1). */
  | { kind: 'update'; lease: DisruptionLease }
  | { kind: 'keep' }
  | { kind: 'held'; holder: string; until?: number };

/** What release says to do: delete our lease at its resourceVersion, or nothing (and why). */
export type ReleaseStep =
  | { kind: 'delete'; namespace: string; name: string; resourceVersion: string }
  | { kind: 'none'; why: string };

/** medik8s names a lease lowercase("<Kind>-<name>"): `node-<node>` for a Node. */
export function disruptionLeaseName(node: string): string {
  return `node-${node}`.toLowerCase();
}

/** MicroTime: RFC 3339 with exactly six fractional digits, as the API server requires. */
export function microTime(ms: number): string {
  return iso(ms).replace(/\.(\d{3})Z$/, '.$1000Z');
}

function build(
  r: LeaseRequest,
  acquiredAt: string,
  transitions: number,
  resourceVersion?: string,
): DisruptionLease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: disruptionLeaseName(r.node.name),
      namespace: r.namespace,
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      // Owned by the Node, as medik8s does: a deleted Node takes its lease with it.
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: r.node.name, uid: r.node.uid }],
    },
    spec: {
      holderIdentity: r.identity,
      leaseDurationSeconds: r.durationSeconds,
      acquireTime: acquiredAt,
      renewTime: microTime(r.now),
      leaseTransitions: transitions,
    },
  };
}

/**
 * Renew when less than a third of the duration is left, so one missed reconcile (or an
 * apiserver blip) never lets the lease lapse under a running repair.
 */
export function renewDue(lease: LeaseSnapshot, now: number): boolean {
  const until = leaseExpiresAt(lease);
  const secs = lease.spec?.leaseDurationSeconds;
  if (until === undefined || typeof secs !== 'number') return true;
  return until - now < (secs * 1000) / 3;
}

/**
 * What to do to hold the lease for a repair, given the lease as read (undefined: none).
 * Someone else's lease that has not lapsed is theirs (even a renewTime ahead of our clock:
 * clock skew is waited out, never taken over); a lapsed or empty one is taken over.
 */
export function acquireOrRenew(existing: LeaseSnapshot | undefined, r: LeaseRequest): LeaseStep {
  if (existing === undefined) return { kind: 'create', lease: build(r, microTime(r.now), 0) };
  const s = existing.spec ?? {};
  const holder = s.holderIdentity ?? '';
  const rv = existing.metadata?.resourceVersion;
  const transitions = s.leaseTransitions ?? 0;
  const until = leaseExpiresAt(existing);
  if (holder === r.identity || (r.adoptFrom !== undefined && holder === r.adoptFrom)) {
    if (
      holder === r.identity &&
      !renewDue(existing, r.now) &&
      s.leaseDurationSeconds === r.durationSeconds
    )
      return { kind: 'keep' };
    const acquired = typeof s.acquireTime === 'string' ? s.acquireTime : microTime(r.now);
    return { kind: 'update', lease: build(r, acquired, transitions, rv) };
  }
  const lapsed = holder === '' || (until !== undefined && r.now > until);
  if (!lapsed) return { kind: 'held', holder, ...(until !== undefined ? { until } : {}) };
  return { kind: 'update', lease: build(r, microTime(r.now), transitions + 1, rv) };
}

/**
 * Release as medik8s' Invalidate does: delete the Lease, and only when we hold it (`identity`,
 * or `adoptFrom`, a former identity of ours, as in LeaseRequest).
 */
export function release(
  existing: LeaseSnapshot | undefined,
  identity: string,
  adoptFrom?: string,
): ReleaseStep {
  if (existing === undefined) return { kind: 'none', why: 'no lease' };
  const holder = existing.spec?.holderIdentity ?? '';
  if (holder !== identity && (adoptFrom === undefined || holder !== adoptFrom))
    return { kind: 'none', why: `held by ${holder || 'nobody'}, not us` };
  const { namespace, name, resourceVersion } = existing.metadata ?? {};
  if (namespace === undefined || name === undefined || resourceVersion === undefined)
    return { kind: 'none', why: 'the lease as read has no namespace, name or resourceVersion' };
  return { kind: 'delete', namespace, name, resourceVersion };
}
