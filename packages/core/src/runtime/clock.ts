// Time as a dependency: everything that waits takes a Clock so tests run in virtual time.
// The one clock of all packages (runtime, drain, autorepair, the OpenStack session, capo):
// a second clock type would let two parts of one reconcile disagree about what time it is.

/** Cancels a timer; calling it after the timer fired (or twice) does nothing. */
export type CancelTimer = () => void;

/**
 * Time as a dependency: everything that waits takes a Clock, so tests and simulations run in
 * virtual time.
 */
export interface Clock {
  /** Current time in milliseconds since the epoch (or since the start of a ManualClock). */
  now(): number;
  /**
   * Calls fn once after ms milliseconds (negative counts as 0); returns the function that cancels
   * it.
   */
  setTimeout(fn: () => void, ms: number): CancelTimer;
  /**
   * Resolves after ms; once the signal aborts it rejects with the signal's reason (an
   * AbortError when the reason is not an Error) and cancels its timer, so nothing is left behind.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The real clock: Date.now and the platform's setTimeout. Its timers keep the process alive until
 * cancelled.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    // Not unref'd: an elector or reflector sleeping between attempts is what keeps a
    // controller process alive. Every owner cancels its timers when it stops.
    const h = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(h);
  },
  sleep(ms, signal) {
    return sleep(systemClock, ms, signal);
  },
};

/** Options of a ManualClock. */
export interface ManualClockOptions {
  /**
   * sleep(ms) moves time forward by ms at once (firing the timers that fall due) instead of
   * waiting for advance(): minutes of retries run in microseconds, for code that only sleeps.
   */
  readonly sleepAdvances?: boolean;
}

/**
 * A deterministic clock for tests and simulations: time moves only on advance(), and due
 * timers fire in time order (ties in scheduling order).
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private readonly sleepAdvances: boolean;
  /** Every sleep's ms, in call order (what a test asserts a retry schedule against). */
  readonly slept: number[] = [];
  constructor(start = 0, opts: ManualClockOptions = {}) {
    this.t = start;
    this.sleepAdvances = opts.sleepAdvances ?? false;
  }
  /** The virtual time in milliseconds; changes only through advance(). */
  now(): number {
    return this.t;
  }
  /** Sleeps on virtual time: resolves at a later advance() (or at once with sleepAdvances). */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.slept.push(ms);
    if (!this.sleepAdvances) return sleep(this, ms, signal);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.advance(Math.max(0, ms));
    return Promise.resolve();
  }
  /** Sets the time: forward fires the timers due by then; backward (a wall-clock step) fires none. */
  setTime(t: number): void {
    if (t >= this.t) this.advance(t - this.t);
    else this.t = t;
  }
  /** Schedules fn at now + ms virtual milliseconds; it fires during a later advance(). */
  setTimeout(fn: () => void, ms: number): CancelTimer {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  /** Number of timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }
  /**
   * Moves time forward by ms, firing every timer that falls due on the way, each at its own time.
   */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = end;
  }
}

/**
 * Resolves after ms on the clock's timers, or rejects with the signal's reason when aborted
 * (the timer cancelled). The building block of Clock.sleep; callers use clock.sleep.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      cancel();
      reject(abortReason(signal!));
    };
    const cancel = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('aborted'), { name: 'AbortError' });
}

/** p, or 'timeout' after ms on the clock; the timer is cancelled either way (no stray timers). */
export function withTimeout<T>(clock: Clock, p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return new Promise<T | 'timeout'>((resolve, reject) => {
    const cancel = clock.setTimeout(() => resolve('timeout'), Math.max(0, ms));
    p.then(
      (v) => {
        cancel();
        resolve(v);
      },
      (e: unknown) => {
        cancel();
        reject(e);
      },
    );
  });
}
