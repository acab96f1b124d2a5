// Runs one promise of the controller to its end on virtual time: drain the microtasks; if it
// still waits, it waits on the ManualClock (a drain pass, a cache wait), so move the clock to
// let it go on. No wall-clock sleep anywhere: setImmediate only yields to the promise queue,
// and everything the controller awaits is in memory.
import type { ManualClock } from '@noderepair/core/testing';

/** Virtual time a single reconcile may wait on the clock before the run calls it stuck. */
const STUCK_MS = 30 * 60_000;
const STEP_MS = 100;

/** The promise's value, advancing `clock` in small steps while it waits on timers only. */
export async function settle<T>(p: Promise<T>, clock: ManualClock): Promise<T> {
  let done = false;
  const watched = p.finally(() => {
    done = true;
  });
  watched.catch(() => undefined);
  for (let waited = 0; ; ) {
    for (let i = 0; i < 3 && !done; i++) await new Promise<void>((r) => setImmediate(r));
    if (done) return p;
    if (clock.pending === 0 && waited > 0)
      throw new Error('reconcile waits on nothing the simulation can move (no timer pending)');
    if (waited >= STUCK_MS) throw new Error(`reconcile still waiting after ${STUCK_MS} virtual ms`);
    clock.advance(STEP_MS);
    waited += STEP_MS;
  }
}
