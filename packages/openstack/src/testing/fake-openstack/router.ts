// The fake's one way in: every request, from either transport, meets the injected faults
// first, then goes to Keystone or Nova, and is logged with the status it got.
import { injectedReply, serviceOf, type FaultInjector } from './faults.js';
import type { RawRequest, RawResponse, Routed } from './http.js';
import type { FakeKeystone } from './keystone.js';
import type { FakeNova } from './nova-servers.js';
import type { FakeRequestLogEntry } from './options.js';

/** Routes requests to the fake services and appends each to the request log. */
export class FakeRouter {
  constructor(
    private readonly now: () => number,
    private readonly faults: FaultInjector,
    private readonly keystone: FakeKeystone,
    private readonly nova: FakeNova,
    private readonly log: FakeRequestLogEntry[],
  ) {}

  /** Answers one request (an injected fault, or the service's reply) and logs it. */
  dispatch(req: RawRequest): RawResponse {
    const at = this.now();
    const f = this.faults.take(req);
    if (f !== undefined) {
      if (f.afterForward) {
        const { res, entry } = this.handle(req);
        this.log.push({ ...entry, at, status: res.status, injected: false });
      }
      this.log.push({
        at,
        method: req.method,
        path: req.url.pathname,
        service: serviceOf(req.url.pathname),
        status: f.status,
        injected: true,
      });
      return injectedReply(f);
    }
    const { res, entry } = this.handle(req);
    this.log.push({ ...entry, at, status: res.status, injected: false });
    return res;
  }

  /** Keystone under /identity; every other path is Nova's to answer (404 when it is none of its). */
  private handle(req: RawRequest): Routed {
    const path = req.url.pathname.replace(/\/+$/, '');
    const base = { method: req.method, path };
    if (path.startsWith('/identity')) return this.keystone.route(req, base);
    return this.nova.route(req, base);
  }
}
