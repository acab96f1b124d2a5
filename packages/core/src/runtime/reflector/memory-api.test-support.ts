// An in-memory list/watch source for reflector unit tests: a resourceVersion counter, an
// event log that can be compacted (old RVs -> 410), and watches the test can cut.
import { errorFromStatus, GoneError } from '../../kube/errors.js';
import type { WatchEvent } from '../../kube/client.js';
import type { KubeObject, ObjectList } from '../../kube/object.js';
import type { ListWatcher } from './list-watcher.js';

type Ev = { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

export class MemoryApi implements ListWatcher<KubeObject> {
  readonly description = 'memory';
  rv = 1;
  compactedTo = 0;
  objects = new Map<string, KubeObject>();
  log: Ev[] = [];
  lists = 0;
  watches = 0;
  failNextWatches = 0;
  /** when true, watches stay open but deliver nothing (a hung connection). */
  silent = false;
  private wake = new Set<() => void>();
  private cut = new Set<() => void>();

  private emit(type: Ev['type'], object: KubeObject): void {
    this.log.push({ rv: this.rv, type, object: structuredClone(object) });
    for (const w of this.wake) w();
  }
  upsert(name: string, data: Record<string, unknown> = {}): void {
    const rv = String(++this.rv);
    const type = this.objects.has(name) ? 'MODIFIED' : 'ADDED';
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name, resourceVersion: rv, managedFields: [{ manager: 'x' }] },
      ...data,
    };
    this.objects.set(name, obj);
    this.emit(type, obj);
  }
  remove(name: string): void {
    const obj = this.objects.get(name);
    if (!obj) return;
    this.objects.delete(name);
    this.emit('DELETED', {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: String(++this.rv) },
    });
  }
  compact(): void {
    this.compactedTo = this.rv;
    this.log = [];
  }
  /** closes every open watch cleanly (as a server timeout or restart would). */
  closeWatches(): void {
    for (const c of this.cut) c();
  }

  async list(opts: { limit?: number; continue?: string }): Promise<ObjectList<KubeObject>> {
    this.lists++;
    const all = [...this.objects.values()].sort((a, b) =>
      a.metadata!.name!.localeCompare(b.metadata!.name!),
    );
    const start = opts.continue ? Number(opts.continue) : 0;
    const end = opts.limit ? start + opts.limit : all.length;
    return {
      metadata: {
        resourceVersion: String(this.rv),
        ...(end < all.length ? { continue: String(end) } : {}),
      },
      items: all.slice(start, end).map((o) => structuredClone(o)),
    };
  }

  async *watch(opts: {
    resourceVersion: string;
    signal: AbortSignal;
  }): AsyncGenerator<WatchEvent<KubeObject>> {
    this.watches++;
    if (this.failNextWatches > 0) {
      this.failNextWatches--;
      throw errorFromStatus({
        kind: 'Status',
        code: 500,
        reason: 'InternalError',
        message: 'boom',
      });
    }
    let from = Number(opts.resourceVersion);
    if (from < this.compactedTo) {
      const status = {
        kind: 'Status' as const,
        code: 410,
        reason: 'Expired',
        message: 'too old resource version',
      };
      yield { type: 'ERROR', status, error: errorFromStatus(status) as GoneError };
      return;
    }
    let closed = false;
    const cut = () => {
      closed = true;
      for (const w of this.wake) w();
    };
    this.cut.add(cut);
    try {
      while (!opts.signal.aborted && !closed) {
        const next = this.silent ? undefined : this.log.find((e) => e.rv > from);
        if (next) {
          from = next.rv;
          yield { type: next.type, object: structuredClone(next.object) };
          continue;
        }
        await new Promise<void>((resolve) => {
          const w = () => {
            this.wake.delete(w);
            opts.signal.removeEventListener('abort', w);
            resolve();
          };
          this.wake.add(w);
          opts.signal.addEventListener('abort', w, { once: true });
        });
      }
    } finally {
      this.cut.delete(cut);
    }
  }
}
