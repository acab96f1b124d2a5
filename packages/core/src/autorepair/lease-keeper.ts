// Takes, renews and releases our per-node disruption lease (health/disruption-lease.ts says
// what to write; this does the requests). Taken before a repair's first disruption, renewed
// while the repair is in flight, released when it ends; optimistic concurrency throughout,
// so two takers never both win.
import type { KubeClient } from '../kube/client.js';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../kube/errors.js';
import { LeaseResource, NamespaceResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import type { LeaseSnapshot } from '../health/actors.js';
import {
  acquireOrRenew,
  disruptionLeaseName,
  release,
  type NodeRef,
} from '../health/disruption-lease.js';

/**
 * The holder identity every noderepair install wrote before it had its own (and the default of
 * a LeaseKeeper or an embedder that names none). Two installs on overlapping nodes both
 * writing it took each other's leases as their own: `noderepair run` now writes
 * {@link installLeaseHolder}. A lease this legacy holder keeps is ours only for a repair our
 * own state annotation says is in flight (an upgrade of the same install mid-repair): see
 * {@link LeaseKeeper.take}'s `adoptLegacy`.
 */
export const LegacyDisruptionLeaseHolder = 'noderepair';

/** @deprecated The legacy, install-blind holder: use {@link installLeaseHolder}. */
export const DisruptionLeaseHolder = LegacyDisruptionLeaseHolder;

/**
 * The holder identity of one install: `noderepair/<namespace>/<id>`, the namespace and name of
 * its leader-election Lease (`--leader-election-namespace`, `--leader-election-id`). The same
 * for every replica and every restart of that install, so a replica that takes over renews the
 * repairs it inherits instead of waiting an hour; different for two installs, which cannot
 * share a leader-election Lease without being one install.
 */
export function installLeaseHolder(namespace: string, id: string): string {
  return `noderepair/${namespace}/${id}`;
}

/**
 * An hour, as NodeMaintenance's own lease: a drain or a reboot runs inside one reconcile and
 * cannot renew meanwhile. A controller that dies mid-repair leaves others waiting at most this.
 */
export const DisruptionLeaseSeconds = 3600;

/** What taking the lease came to. */
export type LeaseTaken = { kind: 'held-by-us' } | { kind: 'held'; holder: string; until?: number };

/**
 * Takes, renews and releases our per-node disruption lease in one namespace, with optimistic
 * concurrency so two takers never both win.
 */
export class LeaseKeeper {
  /**
   * `now` is the clock in epoch milliseconds; `identity` the holder written in the lease (default
   * the legacy LegacyDisruptionLeaseHolder; `noderepair run` passes installLeaseHolder's).
   */
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly now: () => number,
    /** The holder identity this keeper writes and renews. */
    readonly identity: string = LegacyDisruptionLeaseHolder,
  ) {}

  /** The legacy holder when `adoptLegacy` asks for it and ours is another one. */
  private adoptFrom(adoptLegacy: boolean): string | undefined {
    return adoptLegacy && this.identity !== LegacyDisruptionLeaseHolder
      ? LegacyDisruptionLeaseHolder
      : undefined;
  }

  private async get(node: string, signal?: AbortSignal): Promise<LeaseSnapshot | undefined> {
    try {
      return await this.client.get<KubeObject & LeaseSnapshot>(
        LeaseResource,
        disruptionLeaseName(node),
        { namespace: this.namespace, ...(signal !== undefined ? { signal } : {}) },
      );
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  /**
   * Takes (or renews) the lease for `node`. A lease someone else holds is theirs: the caller
   * must not disrupt the node. A lost race (Conflict / AlreadyExists) reads as theirs too;
   * the next pass looks again. Other errors (an outage) propagate: wait, never act.
   *
   * `adoptLegacy`: only for a repair our own state annotation says is in flight. A lease the
   * legacy holder `noderepair` keeps is then ours (this install before its upgrade took it
   * for this very repair) and is rewritten to our identity; otherwise it is anyone's, and
   * waited out like another actor's.
   */
  async take(node: NodeRef, signal?: AbortSignal, adoptLegacy = false): Promise<LeaseTaken> {
    const step = this.stepFrom(await this.get(node.name, signal), node, adoptLegacy);
    if (step.kind === 'keep') return { kind: 'held-by-us' };
    if (step.kind === 'held')
      return {
        kind: 'held',
        holder: step.holder,
        ...(step.until !== undefined ? { until: step.until } : {}),
      };
    const lease = step.lease as typeof step.lease & KubeObject;
    try {
      if (step.kind === 'create') await this.createInNamespace(lease, this.opts(signal));
      else await this.client.update(LeaseResource, lease, this.opts(signal));
      return { kind: 'held-by-us' };
    } catch (e) {
      if (e instanceof ConflictError || e instanceof AlreadyExistsError)
        return { kind: 'held', holder: 'another taker (lost the race)' };
      throw e;
    }
  }

  /**
   * {@link take} for a repair about to start, where the lease is almost always absent: create it
   * first and read it only when one exists (AlreadyExists), then judge that one as take() does.
   * One request instead of two per start; the same answers, since a create never overwrites.
   */
  async takeForStart(
    node: NodeRef,
    signal?: AbortSignal,
    adoptLegacy = false,
  ): Promise<LeaseTaken> {
    const step = this.stepFrom(undefined, node);
    if (step.kind !== 'create') return this.take(node, signal, adoptLegacy); // no lease always means create
    try {
      await this.createInNamespace(step.lease as typeof step.lease & KubeObject, this.opts(signal));
      return { kind: 'held-by-us' };
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
    }
    return this.take(node, signal, adoptLegacy);
  }

  /** What to write for `node`, given the lease as read (undefined: there is none). */
  private stepFrom(existing: LeaseSnapshot | undefined, node: NodeRef, adoptLegacy = false) {
    const adoptFrom = this.adoptFrom(adoptLegacy);
    return acquireOrRenew(existing, {
      node,
      namespace: this.namespace,
      identity: this.identity,
      ...(adoptFrom !== undefined ? { adoptFrom } : {}),
      durationSeconds: DisruptionLeaseSeconds,
      now: this.now(),
    });
  }

  private opts(signal: AbortSignal | undefined) {
    return { namespace: this.namespace, ...(signal !== undefined ? { signal } : {}) };
  }

  /** Creates the lease, and its namespace first if it is missing (as medik8s' lease manager does). */
  private async createInNamespace(
    lease: KubeObject,
    opts: { namespace: string; signal?: AbortSignal },
  ): Promise<void> {
    try {
      await this.client.create(LeaseResource, lease, opts);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      try {
        await this.client.create(NamespaceResource, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: this.namespace },
        });
      } catch (ne) {
        if (!(ne instanceof AlreadyExistsError || ne instanceof ConflictError)) throw ne;
      }
      await this.client.create(LeaseResource, lease, opts);
    }
  }

  /**
   * Releases the lease for `node` if we hold it (deleted with a resourceVersion precondition).
   * `adoptLegacy` as in take: the end of a repair that was in flight releases the legacy
   * holder's lease too (taken by this install before its upgrade).
   */
  async release(node: string, signal?: AbortSignal, adoptLegacy = false): Promise<boolean> {
    const adoptFrom = this.adoptFrom(adoptLegacy);
    const step = release(await this.get(node, signal), this.identity, adoptFrom);
    if (step.kind === 'none') return false;
    try {
      await this.client.delete(LeaseResource, step.name, {
        namespace: step.namespace,
        preconditions: { resourceVersion: step.resourceVersion },
        ...(signal !== undefined ? { signal } : {}),
      });
      return true;
    } catch (e) {
      // Gone already, or changed under us (taken over after lapsing): not ours to delete.
      if (e instanceof NotFoundError || e instanceof ConflictError) return false;
      throw e;
    }
  }
}
