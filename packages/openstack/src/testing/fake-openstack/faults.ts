// Fault injection: an outage of a service for as long as it lasts, or the next N requests
// failing, each optionally after the request took effect (a lost reply behind a proxy).
import { fault, type RawRequest, type RawResponse } from './http.js';
import type { FakeService, FaultSpec } from './options.js';

/** The faults waiting for requests. */
export class FaultInjector {
  readonly #faults: FaultSpec[] = [];
  #outage: FaultSpec | undefined;

  /** See FakeOpenStack.setOutage. */
  setOutage(spec: FaultSpec | undefined): void {
    this.#outage = spec;
  }

  /** See FakeOpenStack.failNext. */
  failNext(count: number, spec: FaultSpec): void {
    for (let i = 0; i < count; i++) this.#faults.push(spec);
  }

  /** The fault this request meets, if any: the outage, else the first queued one (used up). */
  take(req: RawRequest): FaultSpec | undefined {
    const hits = (f: FaultSpec) => !f.service || req.url.pathname.startsWith(`/${f.service}`);
    const fi = this.#faults.findIndex(hits);
    const outage = this.#outage !== undefined && hits(this.#outage) ? this.#outage : undefined;
    if (outage === undefined && fi < 0) return undefined;
    return outage ?? (this.#faults.splice(fi, 1)[0] as FaultSpec);
  }
}

/** The service a path belongs to, for the log of a request that never reached it. */
export function serviceOf(pathname: string): FakeService | 'unknown' {
  return pathname.startsWith('/identity')
    ? 'identity'
    : pathname.startsWith('/compute')
      ? 'compute'
      : 'unknown';
}

/** The reply of an injected fault. */
export function injectedReply(f: FaultSpec): RawResponse {
  return fault(
    f.status,
    f.status === 401 ? 'error' : 'computeFault',
    `Injected fault (HTTP ${f.status})`,
    f.retryAfterSeconds !== undefined ? { 'retry-after': String(f.retryAfterSeconds) } : {},
  );
}
