// Polling with generous limits (the machine is slow and shared): a limit is a safety net
// against hanging for ever, never an assertion about speed.
export async function until<T>(
  what: string,
  f: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 300_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
