// The manager runs a process's informers and controllers: informers always (warm caches on
// standby replicas), controllers only while leading when leader election is on. It serves
// probes and metrics, logs JSON, and shuts down gracefully on abort or SIGTERM: stop taking
// work, let in-flight reconciles finish, release the Lease, stop watches.
//
// A LOST Lease is different: a successor may take it over leaseDuration after our last
// renewal, so in-flight work (every call got the term's AbortSignal) has only until then to
// stop. If it has not, the process exits (code 1), as controller-runtime does: an action that
// outlives the term could overlap the successor's.
import type http from 'node:http';
import { Registry } from 'prom-client';
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import type { ResourceType } from '../../kube/resource.js';
import { systemClock, withTimeout, type Clock } from '../clock.js';
import { Controller, type ControllerOptions } from '../controller/controller.js';
import { LeaderElector, type LeaderElectionOptions } from '../leader/leader-elector.js';
import { stopBudgetMs } from './takeover.js';
import { errorFields, type RuntimeLogger } from '../logger.js';
import type { SelectorOptions } from '../reflector/list-watcher.js';
import { createInformer, type Informer, type InformerOptions } from '../reflector/informer.js';
import { createRuntimeLogger } from './logging.js';
import { RuntimeMetrics } from './metrics.js';
import { serverPort, startProbeServer } from './probes.js';

/** Anything the manager starts; start() runs until the signal aborts. */
export interface Runnable {
  /** Name used in logs when the runnable fails. */
  name: string;
  /** Runs until the signal aborts; a rejection is logged, it does not stop the manager. */
  start(signal: AbortSignal): Promise<void>;
  /** only run while this instance leads (default true for controllers). */
  needLeaderElection?: boolean;
}

/** What the manager needs of an informer: run it, and know when it has synced (readyz). */
export interface ManagedInformer {
  /** Name shown in the readiness probe while the informer has not synced. */
  readonly name: string;
  /** Lists and watches until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /**
   * True once the first list is in the cache; the manager is not ready before every informer is.
   */
  hasSynced(): boolean;
}

/** Options of a Manager; every field has a default. */
export interface ManagerOptions {
  /** Name in logs and the default for components; default `noderepair`. */
  name?: string;
  /** Structured logger; default a JSON logger named after the manager. */
  logger?: RuntimeLogger;
  /** metrics registry; default a new Registry (never prom-client's global). */
  registry?: Registry;
  /** probe/metrics server; false to disable. Port 0 picks a free port. */
  probes?: { port: number; host?: string } | false;
  /**
   * Lease to lead through (name, namespace, identity, timings). Unset: no election, leader-only
   * work runs at once.
   */
  leaderElection?: Omit<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading' | 'logger'>;
  /** install SIGTERM/SIGINT handlers that stop the manager. */
  handleSignals?: boolean;
  /**
   * How long in-flight work gets to finish on shutdown before the manager stops waiting; default
   * 30000 ms. Leader work still running then keeps the Lease (no release, no more renewals) and
   * the process exits before the Lease could be taken over.
   */
  gracefulShutdownTimeoutMs?: number;
  /** Time source for timeouts; default the system clock (tests pass a fake). */
  clock?: Clock;
  /**
   * Ends the process when in-flight work has not stopped by the time a lost Lease could be
   * taken over (default process.exit). Tests pass a stand-in.
   */
  exit?: (code: number) => void;
}

/**
 * The manager lost its Lease: start() rejects with it after stopping, and the process should exit
 * and restart to rejoin the election.
 */
export class LeadershipLostError extends Error {
  /** Names the Lease (`namespace/name`) that was lost. */
  constructor(lease: string) {
    super(`leader election lost for Lease ${lease}; stopping so a fresh process can rejoin`);
    this.name = 'LeadershipLostError';
  }
}

/**
 * Runs a process's informers (always, so standby replicas keep warm caches) and controllers (only
 * while leading), serves probes and metrics, and shuts down gracefully.
 */
export class Manager {
  /** Manager name, from the options (default `noderepair`). */
  readonly name: string;
  /** The logger shared by everything the manager runs. */
  readonly log: RuntimeLogger;
  /**
   * Prometheus metrics of informers, controllers and leader election, in the manager's own
   * registry.
   */
  readonly metrics: RuntimeMetrics;
  private readonly clock: Clock;
  private readonly informers: ManagedInformer[] = [];
  private readonly runnables: Runnable[] = [];
  private readonly stopper = new AbortController();
  private server: http.Server | undefined;
  private elector: LeaderElector | undefined;
  private running = false;
  private stopping = false;

  /** Builds a manager; nothing runs before start(). */
  constructor(private readonly opts: ManagerOptions = {}) {
    this.name = opts.name ?? 'noderepair';
    this.log = opts.logger ?? createRuntimeLogger({ name: this.name });
    this.metrics = new RuntimeMetrics(opts.registry ?? new Registry());
    this.clock = opts.clock ?? systemClock;
  }

  /** A shared informer wired to this manager's logs and metrics. */
  informer<T extends KubeObject, U = T>(
    client: KubeClient,
    rt: ResourceType,
    opts: InformerOptions<T, U> & SelectorOptions = {},
  ): Informer<T, U> {
    let name = opts.name;
    const inf = createInformer<T, U>(client, rt, {
      logger: this.log,
      ...opts,
      onRelist: (r) => {
        this.metrics.informerRelisted(name ?? rt.plural);
        opts.onRelist?.(r);
      },
      onError: (e) => {
        this.metrics.informerError(name ?? rt.plural);
        opts.onError?.(e);
      },
    });
    name = inf.name;
    this.addInformer(inf);
    return inf;
  }

  /** Runs an informer built elsewhere (any Informer fits) for the manager's lifetime. */
  addInformer(inf: ManagedInformer): void {
    if (this.running) throw new Error('manager: add informers before start()');
    this.informers.push(inf);
  }

  /** A controller wired to this manager's logs and metrics; started while leading. */
  controller(
    opts: Omit<ControllerOptions, 'logger' | 'metrics' | 'clock'> & { clock?: Clock },
  ): Controller {
    const c = new Controller({
      clock: this.clock,
      ...opts,
      logger: this.log,
      metrics: this.metrics,
    });
    this.add({ name: c.name, start: (s) => c.start(s), needLeaderElection: true });
    return c;
  }

  /**
   * Registers a runnable to start with the manager; throws once the manager has started. Runs only
   * while leading unless `needLeaderElection` is false.
   */
  add(r: Runnable): void {
    if (this.running) throw new Error('manager: add runnables before start()');
    this.runnables.push(r);
  }

  /** Port of the probe server once started. */
  get probePort(): number | undefined {
    return this.server ? serverPort(this.server) : undefined;
  }

  /** True while this instance holds the Lease; always true without leader election. */
  isLeader(): boolean {
    return this.opts.leaderElection ? (this.elector?.isLeader() ?? false) : true;
  }

  /** Requests a graceful stop; start() resolves when it is complete. */
  stop(): void {
    this.stopper.abort();
  }

  /**
   * After a lost Lease, or a stop whose leader work outlived the graceful timeout (renewals
   * stopped): the leader-only runnables (already aborted) must have returned before a successor
   * could hold the Lease, else the process exits.
   */
  private async stopBeforeTakeover(
    elector: LeaderElector,
    leaderRuns: Promise<void>[],
    timeout: number,
  ): Promise<void> {
    // Due a margin before the earliest takeover: a timer set for the expiry fires late under load.
    const leftMs = stopBudgetMs(
      elector.leaseExpiresAtMs,
      this.clock.now(),
      this.opts.leaderElection ?? {},
    );
    const r = await withTimeout(this.clock, Promise.all(leaderRuns), Math.min(timeout, leftMs));
    if (r !== 'timeout') return;
    this.log.error(
      { leftMs },
      'in-flight work did not stop before the Lease could be taken over; exiting',
    );
    (this.opts.exit ?? ((code: number) => process.exit(code)))(1);
  }

  /**
   * Runs until stop(), the signal, or SIGTERM. Rejects with LeadershipLostError if the
   * Lease is lost (the process should exit and restart, as controller-runtime does).
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error('manager already started');
    this.running = true;
    const stop = this.stopper;
    signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const onSignal = (sig: string) => {
      this.log.info({ signal: sig }, 'signal received; shutting down');
      stop.abort();
    };
    const sigterm = () => onSignal('SIGTERM');
    const sigint = () => onSignal('SIGINT');
    if (this.opts.handleSignals) {
      process.once('SIGTERM', sigterm);
      process.once('SIGINT', sigint);
    }

    if (this.opts.probes !== false) {
      this.server = await startProbeServer(
        {
          healthy: () => !this.stopping,
          notReadyReason: () => {
            if (this.stopping) return 'shutting down';
            const pending = this.informers.filter((i) => !i.hasSynced()).map((i) => i.name);
            return pending.length ? `informers not synced: ${pending.join(', ')}` : null;
          },
        },
        this.metrics.registry,
        this.opts.probes ?? { port: 8081 },
      );
      this.log.info({ port: this.probePort }, 'probe and metrics server listening');
    }

    const informersStop = new AbortController();
    const informerRuns = this.informers.map((i) => i.run(informersStop.signal));
    const always = this.runnables.filter((r) => r.needLeaderElection === false);
    const leaderOnly = this.runnables.filter((r) => r.needLeaderElection !== false);
    const runAll = (rs: Runnable[], s: AbortSignal) =>
      rs.map((r) =>
        r.start(s).catch((e) => {
          this.log.error({ ...errorFields(e), runnable: r.name }, 'runnable failed');
        }),
      );

    let lost = false;
    const alwaysRuns = runAll(always, stop.signal);
    let leaderRuns: Promise<void>[] = [];
    let electionDone: Promise<unknown> = Promise.resolve();
    // Aborted once the leader-only runnables returned (then the elector releases the Lease), or
    // when they outlived the graceful timeout (then it stops renewing without releasing).
    const electionStop = new AbortController();
    if (this.opts.leaderElection) {
      const le = this.opts.leaderElection;
      const leaseName = `${le.namespace}/${le.name}`;
      this.elector = new LeaderElector({
        ...le,
        logger: this.log,
        onStartedLeading: (term) => {
          this.metrics.leaderStatus(le.name, true);
          leaderRuns = runAll(leaderOnly, AbortSignal.any([term, stop.signal]));
        },
        onStoppedLeading: () => this.metrics.leaderStatus(le.name, false),
      });
      this.metrics.leaderStatus(le.name, false);
      // The elector releases the Lease on abort, but only after controllers stopped: it is
      // aborted from the shutdown sequence below, not directly by stop.
      stop.signal.addEventListener(
        'abort',
        () => {
          void Promise.all(leaderRuns).then(() => electionStop.abort());
        },
        { once: true },
      );
      electionDone = this.elector.run(electionStop.signal).then((outcome) => {
        if (outcome === 'lost') {
          lost = true;
          this.log.error({ lease: leaseName }, 'leadership lost');
          stop.abort();
        }
      });
    } else {
      leaderRuns = runAll(leaderOnly, stop.signal);
    }

    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      else stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.stopping = true;
    const timeout = this.opts.gracefulShutdownTimeoutMs ?? 30_000;
    if (lost && this.elector) await this.stopBeforeTakeover(this.elector, leaderRuns, timeout);
    const graceful = (async () => {
      await Promise.all([...leaderRuns, ...alwaysRuns]);
      await electionDone;
    })();
    if ((await withTimeout(this.clock, graceful, timeout)) === 'timeout') {
      this.log.warn({ timeoutMs: timeout }, 'graceful shutdown timed out');
      const elector = this.elector;
      if (elector && !electionStop.signal.aborted) {
        // Leader work ignored its abort for the whole grace period. Renewing on would keep the
        // Lease after start() returns (for ever, if the work never ends); releasing it would let
        // a successor start while the work may still act. So: stop renewing, keep the Lease
        // until it expires, and end the process before it could be taken over, as after a
        // lost Lease.
        elector.abandon();
        electionStop.abort();
        await electionDone;
        await this.stopBeforeTakeover(elector, leaderRuns, Infinity);
      }
    }
    informersStop.abort();
    await withTimeout(this.clock, Promise.all(informerRuns), 5000);
    if (this.server) {
      const server = this.server;
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    }
    if (this.opts.handleSignals) {
      process.off('SIGTERM', sigterm);
      process.off('SIGINT', sigint);
    }
    this.log.info({}, 'manager stopped');
    if (lost && this.opts.leaderElection)
      throw new LeadershipLostError(
        `${this.opts.leaderElection.namespace}/${this.opts.leaderElection.name}`,
      );
  }
}
