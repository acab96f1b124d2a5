// Keystone v3 token requests with plain fetch: the testbed must not depend on the client it
// is meant to check.

export type Identity =
  | {
      readonly kind: 'password';
      readonly username: string;
      readonly password: string;
      readonly project: string;
    }
  | { readonly kind: 'application_credential'; readonly id: string; readonly secret: string };

export interface Token {
  readonly id: string;
  readonly expiresAt: string;
  /** Public URL of each service type in the catalog (compute, image, ...). */
  readonly endpoints: Readonly<Record<string, string>>;
}

function authBody(identity: Identity): unknown {
  if (identity.kind === 'application_credential') {
    return {
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: { id: identity.id, secret: identity.secret },
        },
      },
    };
  }
  return {
    auth: {
      identity: {
        methods: ['password'],
        password: {
          user: { name: identity.username, domain: { id: 'default' }, password: identity.password },
        },
      },
      scope: { project: { name: identity.project, domain: { id: 'default' } } },
    },
  };
}

interface CatalogEntry {
  type?: unknown;
  endpoints?: unknown;
}

function publicEndpoints(catalog: unknown, region: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(catalog)) throw new Error('keystone: token.catalog: expected an array');
  for (const entry of catalog as CatalogEntry[]) {
    if (typeof entry.type !== 'string' || !Array.isArray(entry.endpoints)) continue;
    for (const ep of entry.endpoints as Array<Record<string, unknown>>) {
      if (
        ep['interface'] === 'public' &&
        ep['region_id'] === region &&
        typeof ep['url'] === 'string'
      ) {
        out[entry.type] = ep['url'];
      }
    }
  }
  return out;
}

/** POST /v3/auth/tokens; throws with the status (never the secret) on failure. */
export async function issueToken(
  authUrl: string,
  identity: Identity,
  region = 'RegionOne',
): Promise<Token> {
  const res = await fetch(`${authUrl.replace(/\/$/, '')}/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(authBody(identity)),
  });
  if (res.status !== 201)
    throw new Error(`keystone: ${identity.kind} auth returned HTTP ${res.status}, expected 201`);
  const id = res.headers.get('x-subject-token');
  if (id === null) throw new Error('keystone: response has no X-Subject-Token header');
  const body = (await res.json()) as { token?: { expires_at?: unknown; catalog?: unknown } };
  if (typeof body.token?.expires_at !== 'string')
    throw new Error('keystone: token.expires_at: expected a string');
  return {
    id,
    expiresAt: body.token.expires_at,
    endpoints: publicEndpoints(body.token.catalog, region),
  };
}
