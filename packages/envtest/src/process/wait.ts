/** Thrown by a waitFor check that knows the wait is hopeless (the process exited): ends it at once. */
export class GaveUp extends Error {}

/**
 * Polls `check` until it returns a value other than undefined, or throws after timeoutMs (at
 * once when the check throws GaveUp; other throws are retried and the last one reported).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      // A process that exited will not come up: no point waiting out the deadline.
      if (err instanceof GaveUp) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
