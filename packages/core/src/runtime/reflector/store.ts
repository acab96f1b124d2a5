// The informer's cache: objects by "namespace/name" key plus secondary indexes
// (client-go's ThreadSafeStore with Indexers), and the diff a relist produces.

export type IndexFunc<T> = (obj: T) => string[];

export interface StoreDiff<T> {
  added: T[];
  updated: [old: T, cur: T][];
  deleted: T[];
}

export class Store<T> {
  private readonly objects = new Map<string, T>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(
    private readonly indexers: Readonly<Record<string, IndexFunc<T>>> = {},
    private readonly versionOf: (obj: T) => string | undefined = () => undefined,
  ) {
    for (const name of Object.keys(indexers)) this.indices.set(name, new Map());
  }

  get size(): number {
    return this.objects.size;
  }
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
  has(key: string): boolean {
    return this.objects.has(key);
  }
  keys(): string[] {
    return [...this.objects.keys()];
  }
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
