// Keystone v3 token requests (POST /v3/auth/tokens) and the shape of the reply. Pure: the
// request body from a CloudAuth, the reply decoded with io-ts.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from '@noderepair/core/codec';
import { Catalog } from './catalog.js';
import type { CloudAuth, DomainRef, ProjectRef, UserRef } from './clouds-yaml.js';
import type { Secret } from './secret.js';

function domain(d: DomainRef): Record<string, string> {
  return 'id' in d ? { id: d.id } : { name: d.name };
}

function user(u: UserRef): Record<string, unknown> {
  return 'id' in u ? { id: u.id } : { name: u.name, domain: domain(u.domain) };
}

function project(p: ProjectRef): Record<string, unknown> {
  return 'id' in p ? { id: p.id } : { name: p.name, domain: domain(p.domain) };
}

/** The JSON body for POST /v3/auth/tokens. Contains secrets: only the HTTP layer may see it. */
export function tokenRequestBody(auth: CloudAuth): string {
  if (auth.type === 'password') {
    return JSON.stringify({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { ...user(auth.user), password: auth.password.reveal() } },
        },
        scope: { project: project(auth.project) },
      },
    });
  }
  const c = auth.credential;
  const cred = 'id' in c ? { id: c.id } : { name: c.name, user: user(c.user) };
  // Application credentials carry their own project scope; Keystone rejects an explicit one.
  return JSON.stringify({
    auth: {
      identity: {
        methods: ['application_credential'],
        application_credential: { ...cred, secret: auth.secret.reveal() },
      },
    },
  });
}

/** Every secret a CloudAuth holds (for redaction of server replies). */
export function secretsOf(auth: CloudAuth): Secret[] {
  return auth.type === 'password' ? [auth.password] : [auth.secret];
}

const TokenBody = t.type({
  token: t.intersection([
    t.type({ expires_at: t.string }),
    t.partial({
      catalog: Catalog,
      issued_at: t.string,
      project: t.partial({ id: t.string, name: t.string }),
    }),
  ]),
});

/** What the client keeps from a Keystone token reply (the token itself travels in a header). */
export interface TokenInfo {
  /** When the token expires, in epoch milliseconds. */
  readonly expiresAt: number;
  /** The service catalog the endpoints are chosen from. */
  readonly catalog: Catalog;
  /** The project the token is scoped to, when Keystone names it. */
  readonly projectId: string | undefined;
}

/**
 * Decodes the JSON body of POST /v3/auth/tokens; Left names the field at fault, including a missing
 * catalog (a token that is not project-scoped).
 */
export function decodeTokenBody(body: unknown): E.Either<string, TokenInfo> {
  const r = TokenBody.decode(body);
  if (E.isLeft(r))
    return E.left(`Keystone token reply: ${formatErrors(r.left, 'body').join('; ')}`);
  const tok = r.right.token;
  const expiresAt = Date.parse(tok.expires_at);
  if (Number.isNaN(expiresAt))
    return E.left('Keystone token reply: body.token.expires_at: expected an ISO 8601 time');
  if (!tok.catalog)
    return E.left(
      'Keystone token reply: body.token.catalog: is required (the token is not project-scoped)',
    );
  return E.right({ expiresAt, catalog: tok.catalog, projectId: tok.project?.id });
}
