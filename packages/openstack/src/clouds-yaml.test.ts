import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { normaliseAuthUrl, parseCloudsYaml, type CloudConfig } from './clouds-yaml.js';

function ok(yaml: string, name = 'openstack', caCert?: string): CloudConfig {
  const r = parseCloudsYaml(yaml, name, { caCert });
  if (E.isLeft(r)) throw new Error(r.left);
  return r.right;
}

function err(yaml: string, name = 'openstack'): string {
  const r = parseCloudsYaml(yaml, name);
  if (E.isRight(r)) throw new Error('expected an error');
  return r.left;
}

const password = `clouds:
  openstack:
    auth:
      auth_url: https://keystone.example:5000
      username: capo
      password: pw-123456
      user_domain_name: Default
      project_name: capi
      project_domain_id: default
    region_name: RegionOne
    interface: internal
    verify: true
  other:
    auth:
      auth_url: https://other.example/identity/v3/
      user_id: u1
      password: pw-abcdef
      project_id: p1
    endpoint_type: adminURL
`;

describe('parseCloudsYaml', () => {
  it('reads password auth, region, interface and normalises auth_url', () => {
    const c = ok(password);
    expect(c.authUrl).toBe('https://keystone.example:5000/v3');
    expect(c.region).toBe('RegionOne');
    expect(c.interface).toBe('internal');
    expect(c.verify).toBe(true);
    expect(c.auth.type).toBe('password');
    if (c.auth.type !== 'password') return;
    expect(c.auth.user).toEqual({ name: 'capo', domain: { name: 'Default' } });
    expect(c.auth.project).toEqual({ name: 'capi', domain: { id: 'default' } });
    expect(c.auth.password.reveal()).toBe('pw-123456');
  });

  it('selects the cloud by name; ids and the adminURL spelling', () => {
    const c = ok(password, 'other');
    expect(c.authUrl).toBe('https://other.example/identity/v3');
    expect(c.interface).toBe('admin');
    expect(c.region).toBeUndefined();
    if (c.auth.type !== 'password') throw new Error('password auth expected');
    expect(c.auth.user).toEqual({ id: 'u1' });
    expect(c.auth.project).toEqual({ id: 'p1' });
  });

  it('defaults the interface to public and verification to on', () => {
    const c = ok(
      password.replace('    interface: internal\n', '').replace('    verify: true\n', ''),
    );
    expect(c.interface).toBe('public');
    expect(c.verify).toBe(true);
  });

  it('honours verify: false and carries the Secret cacert and the cacert path', () => {
    const c = ok(
      password.replace('verify: true', 'verify: false\n    cacert: /etc/ca.pem'),
      'openstack',
      '-----BEGIN CERTIFICATE-----',
    );
    expect(c.verify).toBe(false);
    expect(c.caCert).toBe('-----BEGIN CERTIFICATE-----');
    expect(c.caCertPath).toBe('/etc/ca.pem');
  });

  it('reads application credentials by id (auth_type given or inferred)', () => {
    const yaml = `clouds:\n  c:\n    auth:\n      auth_url: http://k:5000/v3\n      application_credential_id: ac1\n      application_credential_secret: sec-123456\n`;
    const inferred = ok(yaml, 'c');
    expect(inferred.auth).toMatchObject({
      type: 'application_credential',
      credential: { id: 'ac1' },
    });
    const declared = ok(
      yaml.replace('    auth:', '    auth_type: v3applicationcredential\n    auth:'),
      'c',
    );
    expect(declared.auth.type).toBe('application_credential');
  });

  it('reads application credentials by name with their user', () => {
    const c = ok(
      `clouds:\n  c:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: http://k/v3\n      application_credential_name: n\n      application_credential_secret: s-123456\n      username: u\n      user_domain_name: D\n`,
      'c',
    );
    expect(c.auth).toMatchObject({
      type: 'application_credential',
      credential: { name: 'n', user: { name: 'u', domain: { name: 'D' } } },
    });
  });

  it('names the missing cloud and lists the others', () => {
    expect(err(password, 'nope')).toBe(
      'clouds.yaml: cloud "nope" not found (clouds: openstack, other)',
    );
  });

  it.each([
    [
      'no password',
      password.replace('      password: pw-123456\n', ''),
      'clouds.openstack.auth.password: is required',
    ],
    [
      'no user domain',
      password.replace('      user_domain_name: Default\n', ''),
      'user_domain_name or user_domain_id is required',
    ],
    [
      'no project',
      password.replace('      project_name: capi\n', ''),
      'project_name or project_id is required',
    ],
    [
      'no auth_url',
      password.replace('      auth_url: https://keystone.example:5000\n', ''),
      'clouds.openstack.auth.auth_url: is required',
    ],
    [
      'bad auth_url',
      password.replace('https://keystone.example:5000', 'keystone'),
      'auth_url: must be an absolute',
    ],
    [
      'bad interface',
      password.replace('interface: internal', 'interface: private'),
      'clouds.openstack.interface: expected',
    ],
    [
      'bad verify',
      password.replace('verify: true', 'verify: maybe'),
      'clouds.openstack.verify: expected boolean',
    ],
    [
      'keystone v2',
      password.replace('    verify: true', '    identity_api_version: 2'),
      'only Keystone v3',
    ],
    [
      'no auth',
      'clouds:\n  openstack:\n    region_name: R\n',
      'clouds.openstack.auth: is required',
    ],
    ['no clouds', 'foo: 1\n', 'clouds.yaml.clouds: is required'],
    [
      'app cred without id or name',
      'clouds:\n  openstack:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: http://k\n      application_credential_secret: x-123456\n',
      'application_credential_id or application_credential_name is required',
    ],
    [
      'app cred without secret',
      'clouds:\n  openstack:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: http://k\n      application_credential_id: a\n',
      'application_credential_secret: is required',
    ],
  ])('rejects %s with a message naming the field', (_name, yaml, expected) => {
    expect(err(yaml)).toContain(expected);
  });

  it('rejects YAML that is not valid with its position', () => {
    expect(err('clouds: [\n')).toMatch(
      /^clouds\.yaml is not valid YAML \(\w+ at line \d+, column \d+\)$/,
    );
  });
});

describe('normaliseAuthUrl', () => {
  it.each([
    ['https://k:5000', 'https://k:5000/v3'],
    ['https://k:5000/', 'https://k:5000/v3'],
    ['https://k:5000/v3', 'https://k:5000/v3'],
    ['https://k/identity/v3/', 'https://k/identity/v3'],
    ['http://k/identity', 'http://k/identity/v3'],
  ])('%s -> %s', (input, expected) => {
    expect(normaliseAuthUrl(input)).toEqual(E.right(expected));
  });

  it('rejects other schemes', () => {
    expect(E.isLeft(normaliseAuthUrl('ftp://k/v3'))).toBe(true);
  });
});
