// Lease leader election (coordination.k8s.io/v1). run() campaigns until it holds the Lease,
// then renews it every retryPeriod; if no renewal succeeds within renewDeadline the term
// ends: the term's AbortSignal aborts and onStoppedLeading fires, so work stops before
// another candidate can take over (leaseDuration > renewDeadline). leaseExpiresAtMs says
// until when no successor can hold the Lease (the start of our last successful renewal plus
// leaseDuration: a successor counts from when it SAW that renewal, which is later), so the
// manager knows how long in-flight work may still take. On shutdown it releases the Lease
// so a successor does not have to wait for expiry.
import type { KubeClient } from '../../kube/client.js';
import { NotFoundError } from '../../kube/errors.js';
import { LeaseResource } from '../../kube/resource.js';
import type { KubeLease } from '../../kube/types.js';
import { systemClock, withTimeout, type Clock } from '../clock.js';
import { microTime } from '../helpers/event-recorder.js';
import { errorFields, silentLogger, type RuntimeLogger } from '../logger.js';
import {
  DEFAULT_LEASE_TIMINGS,
  decideLease,
  leaseFingerprint,
  validateLeaseTimings,
  type LeaseTimings,
} from './lease-decision.js';

/**
 * Options of a LeaderElector; timings default to 15 s lease, 10 s renew deadline, 2 s retry period.
 */
export interface LeaderElectionOptions extends Partial<LeaseTimings> {
  /** Client that reads and writes the Lease (needs get, create and update on leases). */
  client: KubeClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** the Lease name, shared by all candidates. */
  name: string;
  /** unique per candidate, e.g. pod name + random suffix. */
  identity: string;
  /** release the Lease when run() is aborted (default true). */
  releaseOnCancel?: boolean;
  /** Time source of renewals and expiry; default the system clock. */
  clock?: Clock;
  /** Source of the jitter added to retries (0 to 1); default Math.random. */
  random?: () => number;
  /** Logger for leadership changes; default silent. */
  logger?: RuntimeLogger;
  /** leading is aborted when the term ends. */
  onStartedLeading?: (leading: AbortSignal) => void;
  /** Called when the term ends, after the term's signal aborted. */
  onStoppedLeading?: () => void;
  /**
   * Called with the holder's identity whenever a different candidate (or this one) is seen holding
   * the Lease.
   */
  onNewLeader?: (identity: string) => void;
}

/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go's: one candidate holds the
 * Lease and renews it; a term ends when renewals fail for the renew deadline.
 */
export class LeaderElector {
  private readonly timings: LeaseTimings;
  private abandoned = false;
  private readonly clock: Clock;
  private readonly log: RuntimeLogger;
  private readonly random: () => number;
  private observed: { fingerprint: string; atMs: number; lease: KubeLease | undefined } = {
    fingerprint: '',
    atMs: 0,
    lease: undefined,
  };
  private leader = false;
  private lastLeader = '';
  /** Clock time at which our last successful acquire/renew request was sent. */
  private heldSinceMs = 0;

  constructor(private readonly opts: LeaderElectionOptions) {
    if (!opts.identity) throw new TypeError('leader election: identity is required');
    if (!opts.name || !opts.namespace)
      throw new TypeError('leader election: Lease name and namespace are required');
    this.timings = validateLeaseTimings({
      leaseDurationMs: opts.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs,
      renewDeadlineMs: opts.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs,
      retryPeriodMs: opts.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs,
    });
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.log = (opts.logger ?? silentLogger).child({
      lease: `${opts.namespace}/${opts.name}`,
      identity: opts.identity,
    });
  }

  /**
   * True while this candidate holds the Lease (between becoming leader and the end of the term).
   */
  isLeader(): boolean {
    return this.leader;
  }

  /**
   * The earliest time a successor could take the Lease over, judged from our last successful
   * renewal (its send time, so the reply's latency only adds margin).
   */
  get leaseExpiresAtMs(): number {
    return this.heldSinceMs + this.timings.leaseDurationMs;
  }

  /** The holder as last observed ('' when none). */
  get currentLeader(): string {
    return this.lastLeader;
  }

  /**
   * Campaigns, leads, and returns when the term ends (lease lost) or the signal aborts.
   * 'lost' when renewals failed for renewDeadline, 'aborted' when the signal ended it.
   */
  async run(signal: AbortSignal): Promise<'aborted' | 'lost'> {
    try {
      await this.acquire(signal);
    } catch {
      return 'aborted';
    }
    const term = new AbortController();
    this.leader = true;
    this.log.info({}, 'became leader');
    this.opts.onStartedLeading?.(term.signal);
    const outcome = await this.renewLoop(signal);
    this.leader = false;
    term.abort();
    // A stop asked for (SIGTERM, stop()) is the normal end of a term; a lost Lease is not.
    if (outcome === 'lost')
      this.log.warn({ outcome }, 'stopped leading: the Lease could not be renewed in time');
    else this.log.info({ outcome: 'stopped' }, 'stopped leading: shutting down');
    this.opts.onStoppedLeading?.();
    if (outcome === 'aborted' && (this.opts.releaseOnCancel ?? true) && !this.abandoned)
      await this.release();
    return outcome;
  }

  /**
   * Makes the next abort of run() end the term WITHOUT releasing the Lease: the manager calls it
   * when leader work outlived the graceful shutdown timeout. Releasing would let a successor
   * start while that work may still act; the Lease must expire on its own instead.
   */
  abandon(): void {
    this.abandoned = true;
  }

  private async acquire(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) throw new Error('aborted');
      if (await this.tryAcquireOrRenew()) return;
      await this.clock.sleep(this.timings.retryPeriodMs * (1 + 1.2 * this.random()), signal);
    }
  }

  private async renewLoop(signal: AbortSignal): Promise<'aborted' | 'lost'> {
    for (;;) {
      const deadline = this.heldSinceMs + this.timings.renewDeadlineMs;
      // Never sleep past the renew deadline: the term must end AT it, not a retryPeriod
      // later, or the time left before a successor may take over shrinks.
      try {
        await this.clock.sleep(
          Math.min(this.timings.retryPeriodMs, deadline - this.clock.now()),
          signal,
        );
      } catch {
        return 'aborted';
      }
      const left = deadline - this.clock.now();
      if (left <= 0) return 'lost';
      // A hung request must not outlive the deadline: race it against what is left, and
      // cancel it then, so a late write cannot renew a term we have already ended.
      const cancel = new AbortController();
      const r = await withTimeout(this.clock, this.tryAcquireOrRenew(cancel.signal), left);
      if (r === 'timeout') cancel.abort();
      const ok = r === true;
      if (signal.aborted) return 'aborted';
      if (!ok && this.clock.now() >= deadline) return 'lost';
    }
  }

  private observe(lease: KubeLease | undefined): void {
    const fp = leaseFingerprint(lease);
    if (fp !== this.observed.fingerprint)
      this.observed = { fingerprint: fp, atMs: this.clock.now(), lease };
    else this.observed.lease = lease;
    const holder = lease?.spec?.holderIdentity ?? '';
    if (holder !== this.lastLeader) {
      this.lastLeader = holder;
      if (holder) this.opts.onNewLeader?.(holder);
    }
  }

  /** One attempt; true when we hold the Lease afterwards. Errors count as "not held". */
  private async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.opts;
    const sentAt = this.clock.now();
    try {
      let lease: KubeLease | undefined;
      try {
        lease = await client.get<KubeLease>(LeaseResource, name, { namespace, signal });
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
      }
      this.observe(lease);
      const now = this.clock.now();
      const d = decideLease(lease, identity, this.observed.atMs, now, this.timings.leaseDurationMs);
      if (d.action === 'wait') return false;
      const durationSeconds = Math.ceil(this.timings.leaseDurationMs / 1000);
      const ts = microTime(now);
      if (d.action === 'create') {
        const created = await client.create<KubeLease>(
          LeaseResource,
          {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: ts,
              renewTime: ts,
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.observe(created);
        this.heldSinceMs = sentAt;
        return true;
      }
      const spec = lease!.spec ?? {};
      const updated = await client.update<KubeLease>(
        LeaseResource,
        {
          ...lease!,
          spec:
            d.action === 'renew'
              ? { ...spec, renewTime: ts, leaseDurationSeconds: durationSeconds }
              : {
                  ...spec,
                  holderIdentity: identity,
                  leaseDurationSeconds: durationSeconds,
                  acquireTime: ts,
                  renewTime: ts,
                  leaseTransitions: d.transitions,
                },
        },
        { signal },
      );
      this.observe(updated);
      this.heldSinceMs = sentAt;
      return true;
    } catch (e) {
      this.log.debug(errorFields(e), 'lease attempt failed');
      return false;
    }
  }

  /** Gives the Lease up (holder cleared, 1 s duration) so a successor can take it at once. */
  private async release(): Promise<void> {
    const lease = this.observed.lease;
    if (!lease || lease.spec?.holderIdentity !== this.opts.identity) return;
    try {
      const ts = microTime(this.clock.now());
      await this.opts.client.update<KubeLease>(LeaseResource, {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: ts,
          acquireTime: ts,
        },
      });
      this.log.info({}, 'released lease');
    } catch (e) {
      this.log.warn(errorFields(e), 'could not release lease');
    }
  }
}
