// The storm guard's latch (stormGuard.latch), persisted: an annotation on a Lease beside the
// controller's leader-election Lease (same namespace, name `<leader-election-id>-latch`).
// A Lease because the controller may already write Leases in its own namespace (the
// leader-election Role), so the latch needs no new permission; a separate object because the
// leader elector rewrites its own. The controller only ever SETS the annotation; a person
// resets it by removing it (`noderepair reset-latch`, or kubectl annotate ... -). A record
// the controller cannot read holds every start, as a set latch does: a latch we cannot read
// is never taken as released.
import { AlreadyExistsError, NotFoundError } from '../kube/errors.js';
import type { KubeClient } from '../kube/client.js';
import { LeaseResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import type { LatchState } from '../health/storm-guard.js';
import { iso } from '../health/time.js';

/** The annotation that holds the latch: JSON `{"since": RFC 3339, "reason": text}`. */
export const LatchAnnotation = 'noderepair.io/latched';

/** The latch Lease's name for a leader-election id (default noderepair-autorepair-latch). */
export function latchLeaseName(leaderElectionId: string): string {
  return `${leaderElectionId}-latch`;
}

/** Where the latch lives: the Lease's namespace and name. */
export interface LatchRef {
  namespace: string;
  name: string;
}

/** The latch as a value of LatchAnnotation says it (pure); unreadable says what is wrong. */
export function parseLatch(value: string | undefined): LatchState | undefined {
  if (value === undefined) return undefined;
  try {
    const j: unknown = JSON.parse(value);
    if (typeof j === 'object' && j !== null) {
      const { since, reason } = j as { since?: unknown; reason?: unknown };
      const at = typeof since === 'string' ? Date.parse(since) : NaN;
      if (!Number.isNaN(at) && typeof reason === 'string')
        return { kind: 'latched', since: at, reason };
    }
  } catch {
    // not JSON: unreadable below
  }
  return {
    kind: 'unreadable',
    problem: `${LatchAnnotation}: expected {"since": RFC 3339, "reason": text}`,
  };
}

/** The annotation's value for a latch set at `since` for `reason`. */
export function formatLatch(since: number, reason: string): string {
  return JSON.stringify({ since: iso(since), reason });
}

type LatchLease = KubeObject & { spec?: Record<string, unknown> };

/** Reads, sets and resets the latch on its Lease. */
export class LatchStore {
  constructor(
    private readonly client: KubeClient,
    readonly ref: LatchRef,
  ) {}

  private opts(signal?: AbortSignal) {
    return { namespace: this.ref.namespace, ...(signal !== undefined ? { signal } : {}) };
  }

  /**
   * The latch: undefined when not set (no Lease, or no annotation), unreadable when the
   * annotation does not parse or the Lease cannot be read (forbidden, an outage).
   */
  async read(signal?: AbortSignal): Promise<LatchState | undefined> {
    try {
      const lease = await this.client.get<LatchLease>(
        LeaseResource,
        this.ref.name,
        this.opts(signal),
      );
      return parseLatch(lease.metadata?.annotations?.[LatchAnnotation]);
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      if (signal?.aborted === true) throw e;
      return {
        kind: 'unreadable',
        problem: `reading Lease ${this.ref.namespace}/${this.ref.name}: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
  }

  /** Sets the latch (creates the Lease when missing). Errors propagate: the caller retries. */
  async set(since: number, reason: string, signal?: AbortSignal): Promise<void> {
    const value = formatLatch(since, reason);
    const body = { metadata: { annotations: { [LatchAnnotation]: value } } };
    try {
      await this.client.patch(
        LeaseResource,
        this.ref.name,
        { type: 'merge', body },
        this.opts(signal),
      );
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      try {
        await this.client.create<LatchLease>(
          LeaseResource,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: this.ref.name,
              namespace: this.ref.namespace,
              annotations: { [LatchAnnotation]: value },
            },
            spec: {},
          },
          this.opts(signal),
        );
      } catch (e2) {
        // Created meanwhile (another replica, a person): set it on that one.
        if (!(e2 instanceof AlreadyExistsError)) throw e2;
        await this.client.patch(
          LeaseResource,
          this.ref.name,
          { type: 'merge', body },
          this.opts(signal),
        );
      }
    }
  }

  /**
   * Resets the latch (a person's act: `noderepair reset-latch`). Returns what was set, or
   * undefined when it was not set. Rejects with the NotFoundError when the Lease itself does
   * not exist: most likely the wrong namespace or id, which "not set" would hide.
   */
  async reset(signal?: AbortSignal): Promise<LatchState | undefined> {
    const lease = await this.client.get<LatchLease>(
      LeaseResource,
      this.ref.name,
      this.opts(signal),
    );
    const was = parseLatch(lease.metadata?.annotations?.[LatchAnnotation]);
    if (was === undefined) return undefined;
    await this.client.patch(
      LeaseResource,
      this.ref.name,
      { type: 'merge', body: { metadata: { annotations: { [LatchAnnotation]: null } } } },
      this.opts(signal),
    );
    return was;
  }
}
