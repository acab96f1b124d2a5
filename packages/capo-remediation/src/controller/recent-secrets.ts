// The Secrets a reconcile reads (the identity's clouds.yaml, the workload cluster's
// kubeconfig), each read from the API at most once per recheck window and shared by every
// reconcile. They change rarely and many remediations share them, so reading both on every
// reconcile was two of the management requests each reconcile cost. A changed Secret is seen
// within the window: the staleness of an informer's cache, without a watch of every Secret in
// the namespace or a copy of them in memory. Never remembered: not found (a Secret created to
// unblock a remediation is read at the next reconcile), errors, and a Secret its user could
// not use (forget(): a fixed value is read at the next reconcile).
import type { KubeClient, KubeObject } from '@noderepair/core/kube';
import { systemClock, type Clock } from '@noderepair/core/runtime';
import type { SecretLike } from '../capi/index.js';
import { getOrUndefined, SecretResource } from './resources.js';

/** How long a Secret read from the API is reused before it is read again. */
export const SECRET_RECHECK_MS = 30_000;

/** A Secret as the controller reads it. */
export type SecretObject = KubeObject & SecretLike;

/** Options of {@link RecentSecrets}. */
export interface RecentSecretsOptions {
  /** core's Clock (default systemClock; tests pass a ManualClock). */
  readonly clock?: Clock;
  /** Reuse a read for this long (default {@link SECRET_RECHECK_MS}; 0 reads every time). */
  readonly maxAgeMs?: number;
}

interface Read {
  readonly at: number;
  readonly secret: Promise<SecretObject | undefined>;
}

/** Secrets of the management cluster, each read at most once per window (see the file's head). */
export class RecentSecrets {
  private readonly reads = new Map<string, Read>();
  private readonly clock: Clock;
  private readonly maxAgeMs: number;

  constructor(
    private readonly client: KubeClient,
    opts: RecentSecretsOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.maxAgeMs = opts.maxAgeMs ?? SECRET_RECHECK_MS;
  }

  /** The Secret, or undefined when it does not exist; API errors other than 404 are thrown. */
  get(namespace: string, name: string): Promise<SecretObject | undefined> {
    const now = this.clock.now();
    for (const [k, r] of this.reads) if (now - r.at >= this.maxAgeMs) this.reads.delete(k);
    const key = `${namespace}/${name}`;
    const recent = this.reads.get(key);
    if (recent !== undefined) return recent.secret;
    const secret = getOrUndefined(
      this.client.get<SecretObject>(SecretResource, name, { namespace }),
    );
    const read: Read = { at: now, secret };
    this.reads.set(key, read);
    // Concurrent reconciles share the read in flight; only a Secret that exists is kept.
    const drop = () => {
      if (this.reads.get(key) === read) this.reads.delete(key);
    };
    secret.then((s) => (s === undefined ? drop() : undefined), drop);
    return secret;
  }

  /** Read this Secret from the API next time (its content could not be used). */
  forget(namespace: string, name: string): void {
    this.reads.delete(`${namespace}/${name}`);
  }
}
