// Which clouds.yaml keys are errors. Real clouds.yaml files carry many openstacksdk keys we do
// not use (per-service API versions, floating IP settings, ...), so strictness is per level:
//
// - inside `auth`: strict for the auth type we parse. Every key must be one that auth type
//   reads; a key of the other type is named as such, a misspelling gets the likely key, and
//   keystoneauth options that change the token's scope (trust_id, system_scope) are refused.
// - a cloud entry: the keys we read are decoded and checked; keys that would change how
//   Keystone or Nova is reached and that we do not honour are refused (vendor profiles,
//   client certificates, endpoint overrides, a region list without region_name); a key that
//   looks like a misspelling of one we read is an error; any other key is openstacksdk's
//   business and ignored.
// - the file: `clouds` is required; other top-level keys (openstacksdk's `cache`, `client`)
//   are ignored unless they look like a misspelt `clouds`.
import * as t from 'io-ts';
import {
  closestName,
  formatPath,
  formatUnknownField,
  shapeOf,
  unknownFields,
} from '@noderepair/core/codec';

const optString = t.union([t.string, t.undefined, t.null]);

const authUrl = { auth_url: t.string };
const userFields = {
  username: optString,
  user_id: optString,
  user_domain_name: optString,
  user_domain_id: optString,
};
/** domain_* and default_domain_*: the domain of the user and project when theirs is not given. */
const domainFields = {
  domain_name: optString,
  domain_id: optString,
  default_domain_name: optString,
  default_domain_id: optString,
};
const projectFields = {
  project_name: optString,
  project_id: optString,
  tenant_name: optString,
  tenant_id: optString,
  project_domain_name: optString,
  project_domain_id: optString,
};

/** `auth` for auth_type password / v3password. */
export const PasswordAuthSection = t.partial({
  ...authUrl,
  ...userFields,
  password: optString,
  ...projectFields,
  ...domainFields,
});

/**
 * `auth` for auth_type v3applicationcredential / application_credential. project_* are
 * accepted and not used: the credential is bound to its project.
 */
export const AppCredentialAuthSection = t.partial({
  ...authUrl,
  application_credential_id: optString,
  application_credential_name: optString,
  application_credential_secret: optString,
  ...userFields,
  ...projectFields,
  ...domainFields,
});

/** Every `auth` key of either type, for decoding before the type is known. */
export const AuthSection = t.partial({
  ...PasswordAuthSection.props,
  ...AppCredentialAuthSection.props,
});

export type AuthKind = 'password' | 'application_credential';

const SCOPE_OPTIONS: Readonly<Record<string, string>> = {
  trust_id: 'trust-scoped tokens are not supported; noderepair needs a project-scoped token',
  system_scope: 'system-scoped tokens are not supported; noderepair needs a project-scoped token',
};

/** Problems with the keys of `auth` for the auth type in force (empty when none). */
export function authKeyProblems(auth: unknown, kind: AuthKind, at: string): string[] {
  const section = kind === 'password' ? PasswordAuthSection : AppCredentialAuthSection;
  const other = kind === 'password' ? AppCredentialAuthSection : PasswordAuthSection;
  const typeName = kind === 'password' ? 'password' : 'application credential';
  return unknownFields(shapeOf(section), auth).map((f) => {
    const where = formatPath(`${at}.auth`, f.path);
    const scope = SCOPE_OPTIONS[f.field];
    if (scope !== undefined) return `${where}: ${scope}`;
    if (Object.prototype.hasOwnProperty.call(other.props, f.field))
      return `${where}: not used by ${typeName} auth (check auth_type)`;
    // A misspelt key of either type (the type may have been inferred from the misspelling).
    const meant = closestName(f.field, Object.keys(AuthSection.props));
    return formatUnknownField(
      { ...f, ...(meant !== undefined ? { suggestion: meant } : {}) },
      `${at}.auth`,
    );
  });
}

/** The cloud-entry keys we read (their values are decoded and checked by CloudEntry). */
export const READ_CLOUD_KEYS = [
  'auth',
  'auth_type',
  'region_name',
  'interface',
  'endpoint_type',
  'identity_api_version',
  'verify',
  'insecure',
  'cacert',
] as const;

const UNSUPPORTED_CLOUD_KEYS: Readonly<Record<string, string>> = {
  profile:
    'vendor profiles are not supported; write auth_url, region_name and interface in the cloud itself',
  cloud:
    'vendor profiles are not supported; write auth_url, region_name and interface in the cloud itself',
  cert: 'client certificates (cert, key) are not supported',
  key: 'client certificates (cert, key) are not supported',
  identity_endpoint_override:
    'endpoint overrides are not supported; Keystone is reached at auth.auth_url',
  compute_endpoint_override:
    'endpoint overrides are not supported; Nova is found in the Keystone catalog (region_name, interface)',
};

/**
 * openstacksdk keys we do not use, known by name so that none is ever taken for a misspelling.
 * Its per-service keys (compute_api_version, volume_service_type, ...) and any other key are
 * ignored too, unless they look like a misspelling of a key we read.
 */
const IGNORED_CLOUD_KEYS = new Set([
  'api_timeout',
  'timeout',
  'connect_retries',
  'status_code_retries',
  'disable_vendor_agent',
  'floating_ip_source',
  'image_api_use_tasks',
  'image_format',
  'secgroup_source',
  'networks',
  'nat_destination',
  'nat_source',
  'requires_floating_ip',
  'force_ipv4',
  'split_loggers',
  'metrics',
  'rate_limit',
  'concurrency',
  'operation_log',
  'has_network',
  'message',
  'status',
  'regions',
]);

/** Problems with the keys of one cloud entry (its values are CloudEntry's business). */
export function cloudKeyProblems(entry: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  const read: readonly string[] = READ_CLOUD_KEYS;
  for (const k of Object.keys(entry)) {
    if (read.includes(k)) continue;
    const where = formatPath(at, [k]);
    const unsupported = Object.prototype.hasOwnProperty.call(UNSUPPORTED_CLOUD_KEYS, k)
      ? UNSUPPORTED_CLOUD_KEYS[k]
      : undefined;
    if (unsupported !== undefined) problems.push(`${where}: ${unsupported}`);
    else if (k === 'regions' && entry['region_name'] === undefined)
      problems.push(`${where}: a region list is not supported; set region_name to the one region`);
    else if (IGNORED_CLOUD_KEYS.has(k)) continue;
    else {
      // A misspelling of a key we read is an error (`identxity_api_version` too, though it
      // looks like a per-service key); anything else is openstacksdk's and ignored.
      const meant = closestName(k, read);
      if (meant !== undefined)
        problems.push(
          formatUnknownField({ path: [k], field: k, known: read, suggestion: meant }, at),
        );
    }
  }
  return problems;
}

/** A top-level key that looks like a misspelt `clouds` (others belong to openstacksdk). */
export function fileKeyProblems(doc: Record<string, unknown>): string[] {
  if (Object.prototype.hasOwnProperty.call(doc, 'clouds')) return [];
  return Object.keys(doc)
    .filter((k) => closestName(k, ['clouds']) !== undefined)
    .map((k) =>
      formatUnknownField(
        { path: [k], field: k, known: ['clouds'], suggestion: 'clouds' },
        'clouds.yaml',
      ),
    );
}
