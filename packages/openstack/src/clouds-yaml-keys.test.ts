// Unknown clouds.yaml keys, per level (see clouds-yaml-keys.ts): strict inside auth; in a
// cloud, openstacksdk's keys we do not use are ignored, a misspelling of a key we read is an
// error; keys that would change how Keystone or Nova is reached are refused.
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseCloudsYaml, type CloudConfig } from './clouds-yaml.js';

const PASSWORD = 'pw-Secret-0451';

/** A cloud `openstack` with password auth; `cloud` and `auth` lines are added as given. */
function yaml(cloud: string[] = [], auth: string[] = [], top: string[] = []): string {
  return [
    ...top,
    'clouds:',
    '  openstack:',
    '    auth:',
    '      auth_url: https://keystone.example:5000/v3',
    '      username: capo',
    `      password: ${PASSWORD}`,
    '      user_domain_name: Default',
    '      project_name: capi',
    '      project_domain_name: Default',
    ...auth.map((l) => `      ${l}`),
    '    region_name: RegionOne',
    ...cloud.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

function ok(text: string): CloudConfig {
  const r = parseCloudsYaml(text, 'openstack');
  if (E.isLeft(r)) throw new Error(r.left);
  return r.right;
}

function err(text: string): string {
  const r = parseCloudsYaml(text, 'openstack');
  if (E.isRight(r)) throw new Error('expected an error');
  expect(r.left).not.toContain(PASSWORD);
  return r.left;
}

describe('clouds.yaml: a misspelling of a key we read is an error', () => {
  it.each([
    ['regoin_name: RegionTwo', 'regoin_name', 'region_name'],
    ['region: RegionTwo', 'region', 'region_name'],
    ['intreface: internal', 'intreface', 'interface'],
    ['verfy: false', 'verfy', 'verify'],
    ['cacerts: /etc/ca.pem', 'cacerts', 'cacert'],
    ['auth-type: password', 'auth-type', 'auth_type'],
    ['identity_api_verison: 3', 'identity_api_verison', 'identity_api_version'],
    // Looks like a per-service key of a service "identxity" (found by the chaos suite).
    ['identxity_api_version: 3', 'identxity_api_version', 'identity_api_version'],
  ])('%s', (line, key, meant) => {
    expect(err(yaml([line]))).toBe(
      `clouds.yaml: clouds.openstack.${key}: unknown field "${key}" (did you mean "${meant}"?); known fields: auth, auth_type, region_name, interface, endpoint_type, identity_api_version, verify, insecure, cacert`,
    );
  });
});

describe('clouds.yaml: openstacksdk keys we do not use are ignored', () => {
  it('per-service and general openstacksdk settings', () => {
    const c = ok(
      yaml(
        [
          'compute_api_version: "2.1"',
          'volume_api_version: 3',
          'image_api_version: 2',
          'block_storage_api_version: 3',
          'network_service_type: network',
          'identity_interface: internal',
          'floating_ip_source: neutron',
          'image_format: raw',
          'api_timeout: 60',
          'networks:',
          '  - name: public',
          '    routes_externally: true',
          'regions: [RegionOne, RegionTwo]',
        ],
        [],
        ['cache:', '  expiration_time: 3600', 'client:', '  force_ipv4: true'],
      ),
    );
    expect(c.region).toBe('RegionOne');
  });

  it('the files Horizon generates', () => {
    const horizonPassword = `clouds:\n  openstack:\n    auth:\n      auth_url: https://keystone.example:5000\n      username: "capo"\n      project_id: 9f1b\n      project_name: "capi"\n      user_domain_name: "Default"\n      password: ${PASSWORD}\n    region_name: "RegionOne"\n    interface: "public"\n    identity_api_version: 3\n`;
    expect(ok(horizonPassword).auth.type).toBe('password');
    const horizonAppCred = `clouds:\n  openstack:\n    auth:\n      auth_url: https://keystone.example:5000\n      application_credential_id: "ac1"\n      application_credential_secret: "${PASSWORD}"\n    region_name: "RegionOne"\n    interface: "public"\n    identity_api_version: 3\n    auth_type: "v3applicationcredential"\n`;
    expect(ok(horizonAppCred).auth.type).toBe('application_credential');
  });
});

describe('clouds.yaml: keys that would change how Keystone or Nova is reached are refused', () => {
  it.each([
    ['profile: vexxhost', 'clouds.openstack.profile: vendor profiles are not supported'],
    [
      'cert: /etc/client.pem',
      'clouds.openstack.cert: client certificates (cert, key) are not supported',
    ],
    [
      'compute_endpoint_override: https://nova.example/v2.1',
      'clouds.openstack.compute_endpoint_override: endpoint overrides are not supported',
    ],
  ])('%s', (line, message) => {
    expect(err(yaml([line]))).toContain(message);
  });

  it('a region list without region_name', () => {
    const text = yaml(['regions: [RegionOne, RegionTwo]']).replace(
      '    region_name: RegionOne\n',
      '',
    );
    expect(err(text)).toBe(
      'clouds.yaml: clouds.openstack.regions: a region list is not supported; set region_name to the one region',
    );
  });
});

describe('clouds.yaml: auth is strict for its auth type', () => {
  it('names a misspelt auth key and the likely one', () => {
    const text = yaml([], ['user_domain: Default']);
    expect(err(text)).toMatch(
      /^clouds\.yaml: clouds\.openstack\.auth\.user_domain: unknown field "user_domain" \(did you mean "user_domain_id"\?\); known fields: auth_url, username, user_id, user_domain_name, user_domain_id, password, project_name/,
    );
    expect(err(yaml().replace('password:', 'pasword:'))).toContain(
      'clouds.openstack.auth.pasword: unknown field "pasword" (did you mean "password"?)',
    );
  });

  it('a misspelt application credential secret is named, though it made the type password', () => {
    const text = `clouds:\n  openstack:\n    auth:\n      auth_url: https://k/v3\n      application_credential_id: ac1\n      application_credential_secert: ${PASSWORD}\n`;
    expect(err(text)).toContain(
      'clouds.openstack.auth.application_credential_id: not used by password auth (check auth_type); clouds.openstack.auth.application_credential_secert: unknown field "application_credential_secert" (did you mean "application_credential_secret"?)',
    );
  });

  it('a key of the other auth type is named as such', () => {
    const text = `clouds:\n  openstack:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: https://k/v3\n      application_credential_id: ac1\n      application_credential_secret: s-1\n      password: ${PASSWORD}\n`;
    expect(err(text)).toBe(
      'clouds.yaml: clouds.openstack.auth.password: not used by application credential auth (check auth_type)',
    );
  });

  it('refuses scope options that would change the token', () => {
    expect(err(yaml([], ['system_scope: all']))).toBe(
      'clouds.yaml: clouds.openstack.auth.system_scope: system-scoped tokens are not supported; noderepair needs a project-scoped token',
    );
    expect(err(yaml([], ['trust_id: t1']))).toContain(
      'clouds.openstack.auth.trust_id: trust-scoped',
    );
  });
});

describe('clouds.yaml: keys read besides the auth fields', () => {
  it('insecure: true is the legacy verify: false', () => {
    expect(ok(yaml(['insecure: true'])).verify).toBe(false);
    expect(ok(yaml(['insecure: false'])).verify).toBe(true);
    expect(ok(yaml(['insecure: true', 'verify: true'])).verify).toBe(true);
  });

  it('default_domain_* is the user and project domain when theirs is not given', () => {
    const text = yaml([], ['default_domain_id: d1'])
      .replace('      user_domain_name: Default\n', '')
      .replace('      project_domain_name: Default\n', '');
    const c = ok(text);
    if (c.auth.type !== 'password') throw new Error('password auth expected');
    expect(c.auth.user).toEqual({ name: 'capo', domain: { id: 'd1' } });
    expect(c.auth.project).toEqual({ name: 'capi', domain: { id: 'd1' } });
    const own = ok(yaml([], ['default_domain_id: d1']));
    if (own.auth.type !== 'password') throw new Error('password auth expected');
    expect(own.auth.user).toEqual({ name: 'capo', domain: { name: 'Default' } });
  });

  it('a misspelt clouds at the top is named', () => {
    expect(err(yaml().replace('clouds:', 'cloud:'))).toMatch(
      /^clouds\.yaml: clouds\.yaml\.cloud: unknown field "cloud" \(did you mean "clouds"\?\); known fields: clouds; clouds\.yaml\.clouds: is required/,
    );
  });
});
