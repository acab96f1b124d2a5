// FAKE Keystone v3 (tests only): users, projects and application credentials held in memory;
// POST /v3/auth/tokens issues a token in X-Subject-Token with expires_at and a catalog, as
// openstack.md describes. Tokens expire on the injected clock and can be revoked.
import { randomBytes } from 'node:crypto';

/** A user the fake Keystone accepts password authentication for. */
export interface FakeUser {
  /** The user's id. */
  readonly id: string;
  /** The user's name, unique within its domain. */
  readonly name: string;
  /**
   * The domain, matched by id or name (the fake uses one string for both; `Default` also matches id
   * `default`).
   */
  readonly domain: string;
  /** The plain password the fake compares with; test data only. */
  readonly password: string;
  /** Project ids the user has a role on. */
  readonly projects: readonly string[];
  /** Has the admin role (may act on locked servers). */
  readonly admin?: boolean;
}

/** A project tokens can be scoped to; servers belong to one. */
export interface FakeProject {
  /** The project's id. */
  readonly id: string;
  /** The project's name, unique within its domain. */
  readonly name: string;
  /** The domain, matched by id or name as for FakeUser. */
  readonly domain: string;
}

/** An application credential the fake Keystone accepts; it scopes the token to its project. */
export interface FakeApplicationCredential {
  /** The credential's id. */
  readonly id: string;
  /** The credential's name, unique per user. */
  readonly name: string;
  /** The plain secret the fake compares with; test data only. */
  readonly secret: string;
  /** The owning user's id. */
  readonly userId: string;
  /** The project the credential's tokens are scoped to. */
  readonly projectId: string;
}

export interface FakeToken {
  readonly userId: string;
  readonly projectId: string;
  readonly method: 'password' | 'application_credential';
  readonly admin: boolean;
  readonly expiresAt: number;
  revoked: boolean;
}

export type IdentityResult =
  | { readonly ok: true; readonly token: string; readonly record: FakeToken }
  | { readonly ok: false; readonly status: 400 | 401; readonly message: string };

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function s(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export class FakeIdentity {
  readonly users: FakeUser[];
  readonly projects: FakeProject[];
  readonly applicationCredentials: FakeApplicationCredential[];
  readonly tokens = new Map<string, FakeToken>();
  tokenTtlMs: number;
  readonly #now: () => number;

  constructor(
    opts: {
      users: FakeUser[];
      projects: FakeProject[];
      applicationCredentials: FakeApplicationCredential[];
      tokenTtlMs: number;
    },
    now: () => number,
  ) {
    this.users = opts.users;
    this.projects = opts.projects;
    this.applicationCredentials = opts.applicationCredentials;
    this.tokenTtlMs = opts.tokenTtlMs;
    this.#now = now;
  }

  #domainMatches(ref: Json | undefined, domain: string): boolean {
    if (!ref) return false;
    // The fake uses one string as both id and name of a domain ("Default" / "default").
    return (
      s(ref.name) === domain ||
      s(ref.id) === domain ||
      (domain === 'Default' && s(ref.id) === 'default')
    );
  }

  #findUser(ref: Json | undefined): FakeUser | undefined {
    if (!ref) return undefined;
    const id = s(ref.id);
    if (id) return this.users.find((u) => u.id === id);
    const name = s(ref.name);
    return this.users.find(
      (u) => u.name === name && this.#domainMatches(obj(ref.domain), u.domain),
    );
  }

  #findProject(ref: Json | undefined): FakeProject | undefined {
    if (!ref) return undefined;
    const id = s(ref.id);
    if (id) return this.projects.find((p) => p.id === id);
    const name = s(ref.name);
    return this.projects.find(
      (p) => p.name === name && this.#domainMatches(obj(ref.domain), p.domain),
    );
  }

  #issue(userId: string, projectId: string, method: FakeToken['method']): IdentityResult {
    const admin = this.users.find((u) => u.id === userId)?.admin ?? false;
    const token = `fake-token-${randomBytes(16).toString('hex')}`;
    const record: FakeToken = {
      userId,
      admin,
      projectId,
      method,
      expiresAt: this.#now() + this.tokenTtlMs,
      revoked: false,
    };
    this.tokens.set(token, record);
    return { ok: true, token, record };
  }

  /** POST /v3/auth/tokens */
  authenticate(body: unknown): IdentityResult {
    const auth = obj(obj(body)?.auth);
    const identity = obj(auth?.identity);
    const methods = identity?.methods;
    if (!identity || !Array.isArray(methods) || methods.length !== 1) {
      return {
        ok: false,
        status: 400,
        message: 'Expecting to find identity.methods with exactly one method',
      };
    }
    const unauthorized = {
      ok: false,
      status: 401,
      message: 'The request you have made requires authentication.',
    } as const;
    if (methods[0] === 'password') {
      const pw = obj(obj(identity.password)?.user);
      const user = this.#findUser(pw);
      if (!user || s(pw?.password) !== user.password) return unauthorized;
      const project = this.#findProject(obj(obj(auth?.scope)?.project));
      // An unscoped token has no catalog and is useless for Nova; the fake insists on a scope.
      if (!project) return { ok: false, status: 401, message: 'Could not find project.' };
      if (!user.projects.includes(project.id)) return unauthorized;
      return this.#issue(user.id, project.id, 'password');
    }
    if (methods[0] === 'application_credential') {
      const ac = obj(identity.application_credential);
      if (auth?.scope !== undefined)
        return {
          ok: false,
          status: 401,
          message: 'Application credentials cannot request a scope.',
        };
      const id = s(ac?.id);
      const cred = id
        ? this.applicationCredentials.find((c) => c.id === id)
        : this.applicationCredentials.find((c) => {
            if (c.name !== s(ac?.name)) return false;
            const u = this.#findUser(obj(ac?.user));
            return u !== undefined && u.id === c.userId;
          });
      if (!cred || s(ac?.secret) !== cred.secret) return unauthorized;
      return this.#issue(cred.userId, cred.projectId, 'application_credential');
    }
    return { ok: false, status: 401, message: `Unsupported auth method ${String(methods[0])}` };
  }

  /** The token record when the token is valid now. */
  validate(token: string | undefined): FakeToken | undefined {
    if (!token) return undefined;
    const t = this.tokens.get(token);
    if (!t || t.revoked || this.#now() >= t.expiresAt) return undefined;
    return t;
  }

  /** DELETE /v3/auth/tokens: false when the subject token is unknown or already invalid. */
  revoke(token: string): boolean {
    const t = this.validate(token);
    if (!t) return false;
    t.revoked = true;
    return true;
  }

  revokeAll(): void {
    for (const t of this.tokens.values()) t.revoked = true;
  }

  projectOf(id: string): FakeProject | undefined {
    return this.projects.find((p) => p.id === id);
  }
}
