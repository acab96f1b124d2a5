// FAKE Keystone v3 over HTTP: token issue (POST /v3/auth/tokens) with the catalog, token
// revocation (DELETE), and the service side of token validation that Nova's keystonemiddleware
// does (with its token cache when enabled). The users, projects and tokens are FakeIdentity's.
import type { FakeIdentity, FakeToken } from './fake-identity.js';
import { fault, json, type RawRequest, type RawResponse, type Routed } from './http.js';
import type { FakeInterface } from './options.js';

/** The Keystone endpoints of a FakeOpenStack. */
export class FakeKeystone {
  readonly #identity: FakeIdentity;
  readonly #now: () => number;
  readonly #tokenCacheMs: number;
  readonly #tokenCache = new Map<string, { record: FakeToken; until: number }>();
  readonly #catalog: () => unknown[];

  constructor(
    identity: FakeIdentity,
    now: () => number,
    tokenCacheMs: number,
    catalog: () => unknown[],
  ) {
    this.#identity = identity;
    this.#now = now;
    this.#tokenCacheMs = tokenCacheMs;
    this.#catalog = catalog;
  }

  /** A request under /identity. */
  route(req: RawRequest, base: { method: string; path: string }): Routed {
    const path = base.path;
    const entry = { ...base, service: 'identity' as const };
    if (path === '/identity/v3/auth/tokens' && req.method === 'DELETE')
      return { res: this.#revoke(req), entry };
    if (path !== '/identity/v3/auth/tokens' || req.method !== 'POST')
      return { res: fault(404, 'error', 'Not Found'), entry };
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      return {
        res: json(400, { error: { code: 400, message: 'Malformed JSON', title: 'Bad Request' } }),
        entry,
      };
    }
    const r = this.#identity.authenticate(body);
    if (!r.ok)
      return {
        res: json(r.status, {
          error: {
            code: r.status,
            message: r.message,
            title: r.status === 401 ? 'Unauthorized' : 'Bad Request',
          },
        }),
        entry,
      };
    const project = this.#identity.projectOf(r.record.projectId);
    return {
      res: json(
        201,
        {
          token: {
            methods: [r.record.method],
            expires_at: new Date(r.record.expiresAt).toISOString().replace('Z', '000Z'),
            issued_at: new Date(this.#now()).toISOString().replace('Z', '000Z'),
            user: { id: r.record.userId },
            project: {
              id: project?.id,
              name: project?.name,
              domain: { id: 'default', name: project?.domain },
            },
            catalog: this.#catalog(),
          },
        },
        { 'x-subject-token': r.token },
      ),
      entry,
    };
  }

  /** The service side of token validation, with keystonemiddleware's cache when enabled. */
  validateForService(id: string | undefined): FakeToken | undefined {
    const now = this.#now();
    const valid = this.#identity.validate(id);
    if (valid) {
      if (this.#tokenCacheMs > 0 && id !== undefined && !this.#tokenCache.has(id))
        this.#tokenCache.set(id, { record: valid, until: now + this.#tokenCacheMs });
      return valid;
    }
    const cached = id === undefined ? undefined : this.#tokenCache.get(id);
    if (cached && now < cached.until && now < cached.record.expiresAt) return cached.record;
    return undefined;
  }

  /**
   * Keystone's DELETE /v3/auth/tokens: X-Auth-Token must be valid (else 401), X-Subject-Token
   * names the token to revoke (unknown or already revoked -> 404); 204 on success.
   */
  #revoke(req: RawRequest): RawResponse {
    const unauthorized = json(401, {
      error: {
        code: 401,
        message: 'The request you have made requires authentication.',
        title: 'Unauthorized',
      },
    });
    if (!this.#identity.validate(req.headers.get('x-auth-token') ?? undefined)) return unauthorized;
    const subject = req.headers.get('x-subject-token');
    if (!subject || !this.#identity.revoke(subject))
      return json(404, {
        error: { code: 404, message: 'Could not find token.', title: 'Not Found' },
      });
    return { status: 204, headers: {}, body: '' };
  }
}

/** The service catalog: Keystone and a Nova endpoint per region and interface. */
export function catalog(
  regions: readonly string[],
  authUrl: string,
  computeUrl: (region: string, iface: FakeInterface) => string,
): unknown[] {
  const ifaces: FakeInterface[] = ['public', 'internal', 'admin'];
  return [
    {
      type: 'identity',
      name: 'keystone',
      endpoints: regions.flatMap((r) =>
        ifaces.map((i) => ({
          interface: i,
          region_id: r,
          region: r,
          url: authUrl.replace(/\/v3$/, ''),
        })),
      ),
    },
    {
      type: 'compute',
      name: 'nova',
      endpoints: regions.flatMap((r) =>
        ifaces.map((i) => ({
          interface: i,
          region_id: r,
          region: r,
          url: computeUrl(r, i),
        })),
      ),
    },
  ];
}
