// Requests each party sends per minute once everything is synced: the difference of the
// kube-apiserver's APF dispatch counters over a window, scaled to a minute.
import type { ControlPlane } from '@noderepair/envtest';
import { flowSchemaOf, PARTIES, type Party } from '../cluster/identities.js';
import { dispatchedByFlowSchema } from '../metrics/apiserver.js';

export type RequestRates = Record<Party, number>;

/** Pure: per-minute rates from two counter snapshots taken windowMs apart. */
export function perMinute(
  before: Map<string, number>,
  after: Map<string, number>,
  windowMs: number,
): RequestRates {
  const out = {} as RequestRates;
  for (const p of PARTIES) {
    const k = flowSchemaOf(p);
    out[p] = +((((after.get(k) ?? 0) - (before.get(k) ?? 0)) * 60_000) / windowMs).toFixed(1);
  }
  return out;
}

export async function measureSteadyRequests(
  cp: ControlPlane,
  windowMs: number,
): Promise<RequestRates> {
  const before = await dispatchedByFlowSchema(cp);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const after = await dispatchedByFlowSchema(cp);
  return perMinute(before, after, Date.now() - t0);
}
