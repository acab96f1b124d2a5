// The list-then-watch loop (client-go Reflector / kube-rs watcher). It never returns on its
// own: errors back off with jitter, 410 Gone relists, a silent watch is torn down after
// the inactivity timeout, a cleanly closed watch resumes from the last resourceVersion.
import { GoneError } from '../../kube/errors.js';
import type { WatchEvent } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import { Backoff, DEFAULT_WATCH_BACKOFF, type BackoffPolicy } from '../backoff.js';
import { systemClock, type Clock } from '../clock.js';
import { errorFields, silentLogger, type RuntimeLogger } from '../logger.js';
import type { ListWatcher } from './list-watcher.js';

/**
 * Where the reflector delivers what it learns (the informer). `L` is what a listed item becomes
 * by `prepare` (the object itself when there is no `prepare`).
 */
export interface ReflectorSink<T, L = T> {
  /**
   * Runs on each listed item as soon as its page arrives, so the page's parsed JSON can be
   * collected while the next page is fetched instead of the whole list's raw objects living
   * until the list ends (the informer caches a transform of each; the peak of a large initial
   * list is otherwise every raw object at once). Without it the items are kept as listed.
   */
  prepare?(item: T): L;
  /** a full page-by-page list finished; items is the complete snapshot, each prepared. */
  replace(items: L[], resourceVersion: string): void;
  /** one ADDED/MODIFIED/DELETED event. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
}

/** Options of a Reflector; all optional. */
export interface ReflectorOptions {
  /** Items per list page; default 500. */
  pageSize?: number;
  /**
   * Backoff between failed list or watch attempts; default 800 ms doubling to 30 s with full
   * jitter.
   */
  backoff?: BackoffPolicy;
  /** Source of jitter (0 to 1); default Math.random. */
  random?: () => number;
  /** reconnect a watch that delivered nothing (not even a bookmark) for this long; default 5 min. */
  inactivityTimeoutMs?: number;
  /** server-side watch timeout range; a random value in it spreads reconnects (client-go: 5-10 min). */
  minWatchTimeoutSeconds?: number;
  /** Time source of backoff and timeouts; default the system clock. */
  clock?: Clock;
  /** Logger of list/watch failures; default silent. */
  logger?: RuntimeLogger;
  /** called on every relist after the first list (metrics). */
  onRelist?: (reason: string) => void;
  /** called on every error the loop recovers from (metrics). */
  onError?: (e: unknown) => void;
}

/**
 * A watch delivered nothing, not even a bookmark, for the inactivity timeout; the reflector
 * reconnects.
 */
export class InactivityTimeoutError extends Error {
  constructor(ms: number) {
    super(`watch delivered nothing for ${ms} ms`);
    this.name = 'InactivityTimeoutError';
  }
}

/**
 * The list-then-watch loop (client-go's Reflector): lists page by page, then watches from the
 * list's resourceVersion, relisting on 410 Gone and backing off on errors. It never stops on its
 * own.
 */
export class Reflector<T extends KubeObject, L = T> {
  private resourceVersion: string | undefined;
  private readonly backoff: Backoff;
  private readonly clock: Clock;
  private readonly log: RuntimeLogger;

  constructor(
    private readonly lw: ListWatcher<T>,
    private readonly sink: ReflectorSink<T, L>,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.backoff = new Backoff(opts.backoff ?? DEFAULT_WATCH_BACKOFF, opts.random ?? Math.random);
    this.log = (opts.logger ?? silentLogger).child({ reflector: lw.description });
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get lastSyncResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Runs until the signal aborts. Resolves (never rejects) then. */
  async run(signal: AbortSignal): Promise<void> {
    let listed = false;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) {
          if (listed) this.opts.onRelist?.('resourceVersion expired');
          this.resourceVersion = await this.list(signal);
          listed = true;
          this.backoff.reset();
        }
        await this.watch(this.resourceVersion, signal);
      } catch (e) {
        if (signal.aborted) break;
        this.opts.onError?.(e);
        if (e instanceof GoneError) {
          // Our resourceVersion was compacted away: only a fresh list can resync us.
          this.log.info({ rv: this.resourceVersion }, 'resourceVersion too old; relisting');
          this.resourceVersion = undefined;
          continue;
        }
        const delay = this.backoff.next();
        this.log.warn(
          { ...errorFields(e), retryInMs: Math.round(delay) },
          'list/watch failed; backing off',
        );
        try {
          await this.clock.sleep(delay, signal);
        } catch {
          break;
        }
      }
    }
  }

  /** Paginated list; a continue token that expires mid-list restarts the list once fresh. */
  private async list(signal: AbortSignal): Promise<string> {
    const limit = this.opts.pageSize ?? 500;
    const prepare = this.sink.prepare?.bind(this.sink) ?? ((item: T) => item as unknown as L);
    for (let attempt = 0; ; attempt++) {
      const items: L[] = [];
      let cont: string | undefined;
      let rv = '';
      try {
        do {
          const page = await this.lw.list({ limit, ...(cont ? { continue: cont } : {}) });
          if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
          for (const item of page.items) items.push(prepare(item));
          rv = page.metadata.resourceVersion ?? rv;
          cont = page.metadata.continue || undefined;
        } while (cont);
      } catch (e) {
        if (e instanceof GoneError && cont && attempt === 0) continue;
        throw e;
      }
      this.resourceVersion = rv; // visible to sync waiters woken by replace()
      this.sink.replace(items, rv);
      this.log.debug({ count: items.length, rv }, 'listed');
      return rv;
    }
  }

  private async watch(fromRv: string, outer: AbortSignal): Promise<void> {
    const ac = new AbortController();
    const onOuter = () => ac.abort();
    outer.addEventListener('abort', onOuter, { once: true });
    const inactivityMs = this.opts.inactivityTimeoutMs ?? 300_000;
    let timedOut = false;
    let cancelTimer = () => {};
    const arm = () => {
      cancelTimer();
      cancelTimer = this.clock.setTimeout(() => {
        timedOut = true;
        ac.abort();
      }, inactivityMs);
    };
    const minTimeout = this.opts.minWatchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(minTimeout * (1 + (this.opts.random ?? Math.random)()));
    const started = this.clock.now();
    let received = 0;
    arm();
    try {
      const stream = this.lw.watch({
        resourceVersion: fromRv,
        allowWatchBookmarks: true,
        timeoutSeconds,
        signal: ac.signal,
      });
      for await (const ev of stream as AsyncIterable<WatchEvent<T>>) {
        arm();
        received++;
        if (ev.type === 'ERROR') throw ev.error;
        const rv = ev.object.metadata?.resourceVersion;
        if (ev.type !== 'BOOKMARK') this.sink.apply(ev.type, ev.object);
        if (rv) this.resourceVersion = rv;
        this.backoff.reset();
      }
    } finally {
      cancelTimer();
      outer.removeEventListener('abort', onOuter);
      ac.abort();
    }
    if (outer.aborted) return;
    if (timedOut) throw new InactivityTimeoutError(inactivityMs);
    // A stream the server closes at once with nothing in it is a failure in disguise
    // (e.g. an apiserver shutting down); treat it as one so we back off instead of spinning.
    if (received === 0 && this.clock.now() - started < 1000)
      throw new Error('watch closed immediately without events');
  }
}
