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
 * The holder identity of every noderepair replica: one controller, one holder, so a replica
 * that takes over after a restart or a lost leader lease renews the repairs it inherits
 * instead of waiting an hour for its predecessor's lease to lapse.
 */
export const DisruptionLeaseHolder = 'noderepair';

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
   * DisruptionLeaseHolder).
   */
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly now: () => number,
    private readonly identity = DisruptionLeaseHolder,
  ) {}

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
   */
  async take(node: NodeRef, signal?: AbortSignal): Promise<LeaseTaken> {
    const step = this.stepFrom(await this.get(node.name, signal), node);
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
  async takeForStart(node: NodeRef, signal?: AbortSignal): Promise<LeaseTaken> {
    const step = this.stepFrom(undefined, node);
    if (step.kind !== 'create') return this.take(node, signal); // no lease always means create
    try {
      await this.createInNamespace(step.lease as typeof step.lease & KubeObject, this.opts(signal));
      return { kind: 'held-by-us' };
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
    }
    return this.take(node, signal);
  }

  /** What to write for `node`, given the lease as read (undefined: there is none). */
  private stepFrom(existing: LeaseSnapshot | undefined, node: NodeRef) {
    return acquireOrRenew(existing, {
      node,
      namespace: this.namespace,
      identity: this.identity,
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

  /** Releases the lease for `node` if we hold it (deleted with a resourceVersion precondition). */
  async release(node: string, signal?: AbortSignal): Promise<boolean> {
    const step = release(await this.get(node, signal), this.identity);
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
