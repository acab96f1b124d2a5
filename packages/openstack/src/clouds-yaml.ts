// clouds.yaml, as CAPO's identityRef Secret holds it (key "clouds.yaml", optional "cacert").
// Decoded with io-ts into a CloudConfig in which every secret is a Secret, so nothing read
// from the file can be printed by accident. Errors name the field, never the value; YAML
// syntax errors give line and column only, because the parser's own message quotes the line
// (which might be the password line). Which keys are errors is decided per level in
// clouds-yaml-keys.ts: strict inside auth, lenient for openstacksdk's keys we do not use.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { formatErrors } from '@noderepair/core/codec';
import {
  AuthSection,
  authKeyProblems,
  cloudKeyProblems,
  fileKeyProblems,
  type AuthKind,
} from './clouds-yaml-keys.js';
import { Secret } from './secret.js';

/**
 * Which of a service's catalog endpoints to call; clouds.yaml's `publicURL`-style spellings are
 * normalised to these.
 */
export type EndpointInterface = 'public' | 'internal' | 'admin';

/** A Keystone domain, by id or by name. */
export type DomainRef = { readonly id: string } | { readonly name: string };
/** A Keystone user, by id, or by name together with its domain. */
export type UserRef =
  | { readonly id: string }
  | { readonly name: string; readonly domain: DomainRef };
/** A Keystone project to scope the token to, by id, or by name together with its domain. */
export type ProjectRef =
  | { readonly id: string }
  | { readonly name: string; readonly domain: DomainRef };

/** Keystone password authentication (clouds.yaml auth_type `password`/`v3password`). */
export interface PasswordAuth {
  /** Discriminant of CloudAuth. */
  readonly type: 'password';
  /** The user whose password this is. */
  readonly user: UserRef;
  /** The user's password; only ever sent to Keystone. */
  readonly password: Secret;
  /** Project scope; Nova needs a project-scoped token. */
  readonly project: ProjectRef;
}

/**
 * Keystone application-credential authentication (auth_type `v3applicationcredential`); the
 * credential fixes the project scope itself.
 */
export interface ApplicationCredentialAuth {
  /** Discriminant of CloudAuth. */
  readonly type: 'application_credential';
  /** By id, or by name together with its owning user. */
  readonly credential: { readonly id: string } | { readonly name: string; readonly user: UserRef };
  /** The application credential's secret; only ever sent to Keystone. */
  readonly secret: Secret;
}

/** How the client authenticates to Keystone; `type` tells the variants apart. */
export type CloudAuth = PasswordAuth | ApplicationCredentialAuth;

/**
 * One cloud of a clouds.yaml, decoded and validated; secrets are Secret values, so the whole object
 * is safe to log.
 */
export interface CloudConfig {
  /** The clouds.yaml entry this came from (the key under `clouds:`). */
  readonly cloudName: string;
  /** Keystone v3 base, always ending in /v3. */
  readonly authUrl: string;
  /** Credentials and scope to authenticate with. */
  readonly auth: CloudAuth;
  /**
   * clouds.yaml region_name; undefined means the catalog must offer each service in exactly one
   * region.
   */
  readonly region: string | undefined;
  /**
   * Which catalog interface to call (clouds.yaml `interface`/`endpoint_type`, default `public`).
   */
  readonly interface: EndpointInterface;
  /** TLS verification; on unless clouds.yaml says verify: false. */
  readonly verify: boolean;
  /** PEM CA bundle (the Secret's cacert key wins over clouds.yaml's cacert path). */
  readonly caCert: string | undefined;
  /** clouds.yaml cacert: a file path, read by the caller if it wants to honour it. */
  readonly caCertPath: string | undefined;
}

const AuthType = t.keyof({
  password: null,
  v3password: null,
  v3applicationcredential: null,
  application_credential: null,
});

const InterfaceName = t.keyof({
  public: null,
  internal: null,
  admin: null,
  publicURL: null,
  internalURL: null,
  adminURL: null,
});

const CloudEntry = t.intersection([
  t.type({ auth: AuthSection }),
  t.partial({
    auth_type: AuthType,
    region_name: t.union([t.string, t.undefined, t.null]),
    interface: InterfaceName,
    endpoint_type: InterfaceName,
    identity_api_version: t.union([t.string, t.number]),
    verify: t.boolean,
    /** The legacy spelling of verify: false (openstacksdk reads it too). */
    insecure: t.boolean,
    cacert: t.union([t.string, t.undefined, t.null]),
  }),
]);

const CloudsFile = t.type({ clouds: t.record(t.string, t.unknown) });

type AuthFields = t.TypeOf<typeof AuthSection>;

function str(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The user's (project's) own domain, else domain_*, else default_domain_*; id before name. */
function domainOf(a: AuthFields, kind: 'user' | 'project'): DomainRef | undefined {
  const tiers = [
    kind === 'user'
      ? [a.user_domain_id, a.user_domain_name]
      : [a.project_domain_id, a.project_domain_name],
    [a.domain_id, a.domain_name],
    [a.default_domain_id, a.default_domain_name],
  ];
  for (const [id, name] of tiers) {
    if (str(id)) return { id: str(id) as string };
    if (str(name)) return { name: str(name) as string };
  }
  return undefined;
}

function userOf(a: AuthFields, at: string): E.Either<string, UserRef> {
  const id = str(a.user_id);
  if (id) return E.right({ id });
  const name = str(a.username);
  if (!name) return E.left(`${at}: username or user_id is required`);
  const domain = domainOf(a, 'user');
  if (!domain) return E.left(`${at}: user_domain_name or user_domain_id is required with username`);
  return E.right({ name, domain });
}

function projectOf(a: AuthFields, at: string): E.Either<string, ProjectRef> {
  const id = str(a.project_id) ?? str(a.tenant_id);
  if (id) return E.right({ id });
  const name = str(a.project_name) ?? str(a.tenant_name);
  if (!name) return E.left(`${at}: project_name or project_id is required for password auth`);
  const domain = domainOf(a, 'project');
  if (!domain)
    return E.left(`${at}: project_domain_name or project_domain_id is required with project_name`);
  return E.right({ name, domain });
}

/** The auth type: declared, else application credential when its secret is given. */
function authKindOf(entry: t.TypeOf<typeof CloudEntry>): AuthKind {
  const declared = entry.auth_type;
  return declared === 'v3applicationcredential' ||
    declared === 'application_credential' ||
    (declared === undefined && str(entry.auth.application_credential_secret) !== undefined)
    ? 'application_credential'
    : 'password';
}

function authOf(entry: t.TypeOf<typeof CloudEntry>, at: string): E.Either<string, CloudAuth> {
  const a = entry.auth;
  if (authKindOf(entry) === 'application_credential') {
    const secret = str(a.application_credential_secret);
    if (!secret)
      return E.left(
        `${at}.auth.application_credential_secret: is required for application credential auth`,
      );
    const id = str(a.application_credential_id);
    if (id)
      return E.right({
        type: 'application_credential',
        credential: { id },
        secret: new Secret(secret),
      });
    const name = str(a.application_credential_name);
    if (!name)
      return E.left(
        `${at}.auth: application_credential_id or application_credential_name is required`,
      );
    return E.map((user: UserRef) => ({
      type: 'application_credential' as const,
      credential: { name, user },
      secret: new Secret(secret),
    }))(userOf(a, `${at}.auth`));
  }
  const password = str(a.password);
  if (!password) return E.left(`${at}.auth.password: is required for password auth`);
  const user = userOf(a, `${at}.auth`);
  if (E.isLeft(user)) return user;
  const project = projectOf(a, `${at}.auth`);
  if (E.isLeft(project)) return project;
  return E.right({
    type: 'password',
    user: user.right,
    project: project.right,
    password: new Secret(password),
  });
}

/** Accepts ".../v3", ".../v3/", ".../" or a bare host and returns the v3 base without a trailing slash. */
export function normaliseAuthUrl(raw: string): E.Either<string, string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return E.left('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return E.left('must be an http or https URL');
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/v3$/.test(path) ? path : `${path}/v3`;
  return E.right(url.toString().replace(/\/+$/, ''));
}

function interfaceOf(v: t.TypeOf<typeof InterfaceName> | undefined): EndpointInterface {
  if (v === undefined) return 'public';
  return v.replace(/URL$/, '') as EndpointInterface;
}

/** Extra inputs to parseCloudsYaml that live beside clouds.yaml in CAPO's identityRef Secret. */
export interface ParseCloudsOptions {
  /** PEM from the Secret's cacert key. */
  readonly caCert?: string | undefined;
}

function parseYamlSafely(text: string): E.Either<string, unknown> {
  try {
    return E.right(parseYaml(text) as unknown);
  } catch (e) {
    if (e instanceof YAMLParseError) {
      const pos = e.linePos?.[0];
      return E.left(
        `clouds.yaml is not valid YAML (${e.code}${pos ? ` at line ${pos.line}, column ${pos.col}` : ''})`,
      );
    }
    return E.left('clouds.yaml is not valid YAML');
  }
}

function isRecord(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/** Parses clouds.yaml and selects one cloud by name. */
export function parseCloudsYaml(
  text: string,
  cloudName: string,
  opts: ParseCloudsOptions = {},
): E.Either<string, CloudConfig> {
  const doc = parseYamlSafely(text);
  if (E.isLeft(doc)) return doc;
  const file = CloudsFile.decode(doc.right);
  if (E.isLeft(file)) {
    const typos = isRecord(doc.right) ? fileKeyProblems(doc.right) : [];
    return E.left(
      `clouds.yaml: ${[...typos, ...formatErrors(file.left, 'clouds.yaml')].join('; ')}`,
    );
  }
  const clouds = file.right.clouds;
  if (!Object.prototype.hasOwnProperty.call(clouds, cloudName)) {
    const names = Object.keys(clouds);
    return E.left(
      `clouds.yaml: cloud "${cloudName}" not found (clouds: ${names.length ? names.join(', ') : 'none'})`,
    );
  }
  const at = `clouds.${cloudName}`;
  const raw = clouds[cloudName];
  const keyProblems = isRecord(raw) ? cloudKeyProblems(raw, at) : [];
  const entry = CloudEntry.decode(raw);
  if (E.isLeft(entry))
    return E.left(`clouds.yaml: ${[...keyProblems, ...formatErrors(entry.left, at)].join('; ')}`);
  const c = entry.right;
  keyProblems.push(...authKeyProblems(c.auth, authKindOf(c), at));
  if (keyProblems.length > 0) return E.left(`clouds.yaml: ${keyProblems.join('; ')}`);
  if (c.identity_api_version !== undefined && !/^3(\.\d+)?$/.test(String(c.identity_api_version))) {
    return E.left(`clouds.yaml: ${at}.identity_api_version: only Keystone v3 is supported`);
  }
  if (!c.auth.auth_url) return E.left(`clouds.yaml: ${at}.auth.auth_url: is required`);
  const authUrl = normaliseAuthUrl(c.auth.auth_url);
  if (E.isLeft(authUrl)) return E.left(`clouds.yaml: ${at}.auth.auth_url: ${authUrl.left}`);
  const auth = authOf(c, at);
  if (E.isLeft(auth)) return E.left(`clouds.yaml: ${auth.left}`);
  const caCert = str(opts.caCert);
  return E.right({
    cloudName,
    authUrl: authUrl.right,
    auth: auth.right,
    region: str(c.region_name),
    interface: interfaceOf(c.interface ?? c.endpoint_type),
    verify: c.verify ?? c.insecure !== true,
    caCert,
    caCertPath: str(c.cacert),
  });
}
