// The informer's cache: objects by "namespace/name" key plus secondary indexes
// (client-go's ThreadSafeStore with Indexers), and the diff a relist produces.

/** Maps an object to the index values it is found under (several, or none). */
export type IndexFunc<T> = (obj: T) => string[];

/** What a Store.replace changed. */
export interface StoreDiff<T> {
  /** Objects that were not in the store. */
  added: T[];
  /** Objects whose resourceVersion changed, as pairs of old and new. */
  updated: [old: T, cur: T][];
  /** Objects that were in the store but not in the new content. */
  deleted: T[];
}

/**
 * A cache of objects by `namespace/name` key with named secondary indexes (client-go's
 * ThreadSafeStore with indexers).
 */
export class Store<T> {
  private readonly objects = new Map<string, T>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(
    private readonly indexers: Readonly<Record<string, IndexFunc<T>>> = {},
    private readonly versionOf: (obj: T) => string | undefined = () => undefined,
  ) {
    for (const name of Object.keys(indexers)) this.indices.set(name, new Map());
  }

  /** Number of cached objects. */
  get size(): number {
    return this.objects.size;
  }
  /** The object under the key, or undefined. */
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
  /** True when an object is cached under the key. */
  has(key: string): boolean {
    return this.objects.has(key);
  }
  /** Every key, in insertion order. */
  keys(): string[] {
    return [...this.objects.keys()];
  }
  /** Every cached object, in insertion order. */
  list(): T[] {
    return [...this.objects.values()];
  }

  /** Objects whose index function returned value. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index)
      throw new RangeError(
        `no index named ${JSON.stringify(indexName)} (have: ${[...this.indices.keys()].join(', ') || 'none'})`,
      );
    const keys = index.get(value);
    return keys ? [...keys].map((k) => this.objects.get(k) as T) : [];
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(key: string, obj: T): T | undefined {
    const old = this.objects.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.objects.set(key, obj);
    this.index(key, obj);
    return old;
  }

  /** Removes the object under the key; returns it, or undefined when there was none. */
  remove(key: string): T | undefined {
    const old = this.objects.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  /**
   * Replaces the whole content (after a list) and reports what changed. Objects whose
   * resourceVersion is unchanged are kept as they are and not reported.
   */
  replace(entries: Iterable<[string, T]>): StoreDiff<T> {
    const diff: StoreDiff<T> = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const [key, obj] of entries) {
      seen.add(key);
      const old = this.objects.get(key);
      if (old === undefined) {
        this.upsert(key, obj);
        diff.added.push(obj);
      } else {
        const v = this.versionOf(obj);
        if (v !== undefined && v === this.versionOf(old)) continue;
        this.upsert(key, obj);
        diff.updated.push([old, obj]);
      }
    }
    for (const key of [...this.objects.keys()]) {
      if (!seen.has(key)) diff.deleted.push(this.remove(key) as T);
    }
    return diff;
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        let set = index.get(value);
        if (!set) index.set(value, (set = new Set()));
        set.add(key);
      }
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const set = index.get(value);
        set?.delete(key);
        if (set && set.size === 0) index.delete(value);
      }
    }
  }
}
