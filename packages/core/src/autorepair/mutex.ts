// A tiny async mutex. The reconciler decides and persists under it so that two workers can
// never both be admitted by the storm guard on the same stale view of the fleet.
/** An async mutex: callers of run take turns in call order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every earlier run has settled; the lock is released even when `fn` throws. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await prev;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
