// An informer: a Reflector feeding a Store, announcing changes to handlers. Handlers run
// synchronously in event order; a throwing handler is logged and never stops the informer.
// (No Observable of events: handlers are the one event API.)
import type { KubeClient } from '../../kube/client.js';
import { objectKeyOf, type KubeObject } from '../../kube/object.js';
import type { ResourceType } from '../../kube/resource.js';
import { errorFields, silentLogger, type RuntimeLogger } from '../logger.js';
import { listWatcherFor, type ListWatcher, type SelectorOptions } from './list-watcher.js';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.js';
import { Store, type IndexFunc } from './store.js';
import { dropManagedFields, type Transform } from './transform.js';

/**
 * Callbacks an informer calls synchronously, in event order; a throwing handler is logged and
 * skipped.
 */
export interface InformerHandlers<U> {
  /** inInitialList: the object came from the first list, not from a later change. */
  onAdd?(obj: U, inInitialList: boolean): void;
  /** The object changed (also on a relist that found a new resourceVersion). */
  onUpdate?(old: U, cur: U): void;
  /** The object was deleted, or was missing from a relist; receives the last cached state. */
  onDelete?(obj: U): void;
}

/** Options of an Informer: the reflector's options plus the cache's shape. */
export interface InformerOptions<T extends KubeObject, U> extends ReflectorOptions {
  /**
   * Runs on every object before it is cached; default drops managedFields. The result must
   * keep metadata.resourceVersion for a relist to skip unchanged objects; metadata.name and
   * namespace are taken from the original object.
   */
  transform?: Transform<T, U>;
  /** Named index functions of the cache, queried with byIndex(). */
  indexers?: Record<string, IndexFunc<U>>;
  /** name used in logs and metrics; defaults to the list-watcher description. */
  name?: string;
}

/**
 * A cache of one resource type kept current by list and watch, announcing each change to handlers.
 */
export class Informer<T extends KubeObject, U = T> {
  /** Name in logs and metrics. */
  readonly name: string;
  /** The cache; read it through get, list and byIndex. */
  readonly store: Store<U>;
  private readonly handlers = new Set<InformerHandlers<U>>();
  private readonly reflector: Reflector<T, [string, U]>;
  private readonly transform: Transform<T, U>;
  private readonly log: RuntimeLogger;
  private synced = false;
  private syncWaiters: (() => void)[] = [];

  constructor(lw: ListWatcher<T>, opts: InformerOptions<T, U> = {}) {
    this.name = opts.name ?? lw.description;
    this.transform = opts.transform ?? (dropManagedFields as unknown as Transform<T, U>);
    this.store = new Store<U>(
      opts.indexers ?? {},
      (o) => (o as KubeObject).metadata?.resourceVersion,
    );
    this.log = (opts.logger ?? silentLogger).child({ informer: this.name });
    const sink: ReflectorSink<T, [string, U]> = {
      // Transformed page by page: a large list's raw objects never all live at once.
      prepare: (raw) => [objectKeyOf(raw), this.transform(raw)],
      replace: (entries) => this.onReplace(entries),
      apply: (type, obj) => this.onEvent(type, obj),
    };
    this.reflector = new Reflector<T, [string, U]>(lw, sink, {
      ...opts,
      logger: opts.logger ?? silentLogger,
    });
  }

  /** true once the first list has been stored and announced. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves when synced; rejects if the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== done);
        reject(new Error(`informer ${this.name} stopped before it synced`));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(done);
    });
  }

  /** Registers handlers; if already synced, replays the cache as adds (like client-go). */
  addHandlers(h: InformerHandlers<U>): () => void {
    this.handlers.add(h);
    if (this.synced && h.onAdd)
      for (const o of this.store.list()) this.call(() => h.onAdd!(o, true));
    return () => this.handlers.delete(h);
  }

  /** The cached object under a `namespace/name` (or `name`) key, or undefined. */
  get(key: string): U | undefined {
    return this.store.get(key);
  }
  /** Every cached object. */
  list(): U[] {
    return this.store.list();
  }
  /** The cached objects the named index maps the value to; an unknown index name is a RangeError. */
  byIndex(indexName: string, value: string): U[] {
    return this.store.byIndex(indexName, value);
  }
  /** resourceVersion of the last list or watch event applied to the cache. */
  get lastSyncResourceVersion(): string | undefined {
    return this.reflector.lastSyncResourceVersion;
  }

  /** Runs the list/watch loop until the signal aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.reflector.run(signal);
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error(errorFields(e), 'informer handler threw');
    }
  }

  private onReplace(entries: [string, U][]): void {
    const initial = !this.synced;
    const diff = this.store.replace(entries);
    for (const h of this.handlers) {
      for (const o of diff.added) if (h.onAdd) this.call(() => h.onAdd!(o, initial));
      for (const [a, b] of diff.updated) if (h.onUpdate) this.call(() => h.onUpdate!(a, b));
      for (const o of diff.deleted) if (h.onDelete) this.call(() => h.onDelete!(o));
    }
    if (initial) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const key = objectKeyOf(raw);
    const obj = this.transform(raw);
    if (type === 'DELETED') {
      const old = this.store.remove(key);
      for (const h of this.handlers) if (h.onDelete) this.call(() => h.onDelete!(old ?? obj));
      return;
    }
    const old = this.store.upsert(key, obj);
    for (const h of this.handlers) {
      if (old === undefined) {
        if (h.onAdd) this.call(() => h.onAdd!(obj, false));
      } else if (h.onUpdate) this.call(() => h.onUpdate!(old, obj));
    }
  }
}

/** An informer for a resource type through a KubeClient. */
export function createInformer<T extends KubeObject, U = T>(
  client: KubeClient,
  rt: ResourceType,
  opts: InformerOptions<T, U> & SelectorOptions = {},
): Informer<T, U> {
  const { namespace, labelSelector, fieldSelector, ...rest } = opts;
  const sel: SelectorOptions = {};
  if (namespace) sel.namespace = namespace;
  if (labelSelector) sel.labelSelector = labelSelector;
  if (fieldSelector) sel.fieldSelector = fieldSelector;
  return new Informer<T, U>(listWatcherFor<T>(client, rt, sel), rest);
}
