// Polling with generous limits (the machine is slow and shared): a limit is a safety net
// against hanging for ever, never an assertion about speed. The loop is the integration
// tests' own; the suite only sets longer defaults.
import { until as pollUntil } from '../../capo-remediation/test/support/remediation-env.js';

export function until<T>(
  what: string,
  f: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 300_000,
  everyMs = 200,
): Promise<T> {
  return pollUntil(what, async () => f(), timeoutMs, everyMs);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
