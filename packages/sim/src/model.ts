// Timing constants of the simulated world and of the runtime the run loop stands in for,
// kept apart so the liveness bound (liveness.ts) can name them without importing the run.

/** How long a machine takes from a power cycle until its kubelet posts again. */
export const BOOT_MS = 90_000;

/** The informer's resync: every node is reconciled again within it, and the run loop caps
 * the rate limiter's backoff at it (an error never parks a node for longer). */
export const RESYNC_MS = 5 * 60_000;
