// Waking a reconcile that waits for the informer's cache to show a state it wrote (the storm
// guard counts from the cache, so a repair's intent must be there before the next decision).
// The informer's own event for that Node wakes it; a cache without events is polled.
import type { Clock } from '../runtime/clock.js';
import type { InformerHandlers } from '../runtime/reflector/informer.js';

/** A cache that tells when its entries change (an Informer does). */
export interface ChangeSource<V> {
  addHandlers(h: InformerHandlers<V>): () => void;
}

/** Polling interval of a cache without events. */
const POLL_MS = 25;
/** With events, look anyway after this long: a wait never hangs on one missed event. */
const FALLBACK_MS = 250;

/** Waiters per Node name, woken by one handler on the informer. */
export class CacheChanges<V extends { metadata?: { name?: string } }> {
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening = false;

  constructor(
    private readonly source: Partial<ChangeSource<V>>,
    private readonly clock: Clock,
  ) {}

  /**
   * Armed at once; `wait` resolves at the next change of `name` in the cache, after a fallback
   * delay, or on abort. Arm it BEFORE reading the cache, so that a change landing between the
   * read and the wait still wakes it. `cancel` disarms it (also done when `wait` resolves).
   */
  next(name: string, signal: AbortSignal): { wait: Promise<void>; cancel: () => void } {
    const events = this.listen();
    const timer = new AbortController();
    let wake!: () => void;
    const wait = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiters.get(name) ?? new Set<() => void>();
    this.waiters.set(name, set);
    set.add(wake);
    const onAbort = () => wake();
    signal.addEventListener('abort', onAbort, { once: true });
    // A rejected sleep (cancelled) wakes nobody: the waiter is gone by then.
    this.clock.sleep(events ? FALLBACK_MS : POLL_MS, timer.signal).then(wake, () => undefined);
    const cancel = () => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(name) === set) this.waiters.delete(name);
      signal.removeEventListener('abort', onAbort);
      timer.abort();
    };
    return { wait: wait.finally(cancel), cancel };
  }

  /** Registers the one handler on first use; false when the cache has no events. */
  private listen(): boolean {
    if (this.listening) return true;
    const add = this.source.addHandlers?.bind(this.source);
    if (add === undefined) return false;
    const changed = (v: V) => {
      const name = v.metadata?.name;
      if (name === undefined) return;
      for (const w of this.waiters.get(name) ?? []) w();
    };
    // No onAdd: the informer would replay its whole cache as adds to a new handler.
    add({ onUpdate: (_old, cur) => changed(cur), onDelete: changed });
    this.listening = true;
    return true;
  }
}
