// A clouds.yaml that logs in to a FakeOpenStack with its default identity (FAKE_DEFAULTS).
import { FAKE_DEFAULTS, type FakeInterface } from './options.js';

/** Options of {@link cloudsYaml}. */
export interface CloudsYamlOptions {
  cloudName?: string;
  auth?: 'password' | 'application_credential';
  region?: string;
  interface?: FakeInterface;
  cacertPath?: string;
}

/** The clouds.yaml text (password or application-credential auth). */
export function cloudsYaml(
  authUrl: string,
  regions: readonly string[],
  opts: CloudsYamlOptions = {},
): string {
  const d = FAKE_DEFAULTS;
  const name = opts.cloudName ?? 'openstack';
  const lines = [`clouds:`, `  ${name}:`, `    auth:`, `      auth_url: ${authUrl}`];
  if ((opts.auth ?? 'password') === 'password') {
    lines.push(
      `      username: ${d.user.name}`,
      `      password: ${d.user.password}`,
      `      user_domain_name: ${d.domain}`,
      `      project_name: ${d.project.name}`,
      `      project_domain_name: ${d.domain}`,
      `    auth_type: password`,
    );
  } else {
    lines.push(
      `      application_credential_id: ${d.applicationCredential.id}`,
      `      application_credential_secret: ${d.applicationCredential.secret}`,
      `    auth_type: v3applicationcredential`,
    );
  }
  lines.push(
    `    region_name: ${opts.region ?? regions[0] ?? 'RegionOne'}`,
    `    interface: ${opts.interface ?? 'public'}`,
    `    identity_api_version: 3`,
  );
  if (opts.cacertPath) lines.push(`    cacert: ${opts.cacertPath}`);
  return `${lines.join('\n')}\n`;
}
