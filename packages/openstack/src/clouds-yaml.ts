// clouds.yaml, as CAPO's identityRef Secret holds it (key "clouds.yaml", optional "cacert").
// Decoded with io-ts into a CloudConfig in which every secret is a Secret, so nothing read
// from the file can be printed by accident. Errors name the field, never the value; YAML
// syntax errors give line and column only, because the parser's own message quotes the line
// (which might be the password line).
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { formatErrors } from '@noderepair/core';
import { Secret } from './secret.js';

export type EndpointInterface = 'public' | 'internal' | 'admin';

/** A Keystone domain, by id or by name. */
export type DomainRef = { readonly id: string } | { readonly name: string };
export type UserRef =
  | { readonly id: string }
  | { readonly name: string; readonly domain: DomainRef };
export type ProjectRef =
  | { readonly id: string }
  | { readonly name: string; readonly domain: DomainRef };

export interface PasswordAuth {
  readonly type: 'password';
  readonly user: UserRef;
  readonly password: Secret;
  /** Project scope; Nova needs a project-scoped token. */
  readonly project: ProjectRef;
}

export interface ApplicationCredentialAuth {
  readonly type: 'application_credential';
  /** By id, or by name together with its owning user. */
  readonly credential: { readonly id: string } | { readonly name: string; readonly user: UserRef };
  readonly secret: Secret;
}

export type CloudAuth = PasswordAuth | ApplicationCredentialAuth;

export interface CloudConfig {
  readonly cloudName: string;
  /** Keystone v3 base, always ending in /v3. */
  readonly authUrl: string;
  readonly auth: CloudAuth;
  readonly region: string | undefined;
  readonly interface: EndpointInterface;
  /** TLS verification; on unless clouds.yaml says verify: false. */
  readonly verify: boolean;
  /** PEM CA bundle (the Secret's cacert key wins over clouds.yaml's cacert path). */
  readonly caCert: string | undefined;
  /** clouds.yaml cacert: a file path, read by the caller if it wants to honour it. */
  readonly caCertPath: string | undefined;
}

const optString = t.union([t.string, t.undefined, t.null]);

const AuthSection = t.partial({
  auth_url: t.string,
  username: optString,
  user_id: optString,
  password: optString,
  user_domain_name: optString,
  user_domain_id: optString,
  project_name: optString,
  project_id: optString,
  tenant_name: optString,
  tenant_id: optString,
  project_domain_name: optString,
  project_domain_id: optString,
  domain_name: optString,
  domain_id: optString,
  application_credential_id: optString,
  application_credential_name: optString,
  application_credential_secret: optString,
});

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
    region_name: optString,
    interface: InterfaceName,
    endpoint_type: InterfaceName,
    identity_api_version: t.union([t.string, t.number]),
    verify: t.boolean,
    cacert: optString,
  }),
]);

const CloudsFile = t.type({ clouds: t.record(t.string, t.unknown) });

type AuthFields = t.TypeOf<typeof AuthSection>;

function str(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function domainOf(a: AuthFields, kind: 'user' | 'project'): DomainRef | undefined {
  const id = str(kind === 'user' ? a.user_domain_id : a.project_domain_id) ?? str(a.domain_id);
  if (id) return { id };
  const name =
    str(kind === 'user' ? a.user_domain_name : a.project_domain_name) ?? str(a.domain_name);
  return name ? { name } : undefined;
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

function authOf(entry: t.TypeOf<typeof CloudEntry>, at: string): E.Either<string, CloudAuth> {
  const a = entry.auth;
  const declared = entry.auth_type;
  const appCred =
    declared === 'v3applicationcredential' ||
    declared === 'application_credential' ||
    (declared === undefined && str(a.application_credential_secret) !== undefined);
  if (appCred) {
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

/** Parses clouds.yaml and selects one cloud by name. */
export function parseCloudsYaml(
  text: string,
  cloudName: string,
  opts: ParseCloudsOptions = {},
): E.Either<string, CloudConfig> {
  const doc = parseYamlSafely(text);
  if (E.isLeft(doc)) return doc;
  const file = CloudsFile.decode(doc.right);
  if (E.isLeft(file))
    return E.left(`clouds.yaml: ${formatErrors(file.left, 'clouds.yaml').join('; ')}`);
  const clouds = file.right.clouds;
  if (!Object.prototype.hasOwnProperty.call(clouds, cloudName)) {
    const names = Object.keys(clouds);
    return E.left(
      `clouds.yaml: cloud "${cloudName}" not found (clouds: ${names.length ? names.join(', ') : 'none'})`,
    );
  }
  const at = `clouds.${cloudName}`;
  const entry = CloudEntry.decode(clouds[cloudName]);
  if (E.isLeft(entry)) return E.left(`clouds.yaml: ${formatErrors(entry.left, at).join('; ')}`);
  const c = entry.right;
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
    verify: c.verify ?? true,
    caCert,
    caCertPath: str(c.cacert),
  });
}
