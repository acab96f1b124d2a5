// The loader against real kubeconfig files in a temporary directory: paths, merging, the
// in-cluster layout, strict fields, and no secret in any message.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { configCredentials } from './credentials.js';
import { KubeConfigError, inClusterConfig, loadKubeConfig, parseKubeConfig } from './load.js';

const TOKEN = 'tok-3f9a-very-secret';
const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nsecret-key-bytes\n-----END PRIVATE KEY-----\n';
let dir: string;

function write(name: string, content: string | object): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : YAML.stringify(content));
  return p;
}

function doc(user: object, cluster: object = { server: 'https://api.example:6443' }, extra = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'ns1' } }],
    'current-context': 'ctx',
    ...extra,
  };
}

async function loadError(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KubeConfigError);
  const msg = (e as Error).message;
  expect(msg).not.toContain(TOKEN);
  expect(msg).not.toContain('secret-key-bytes');
  return msg;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
});

describe('loadKubeConfig from files', () => {
  it('reads an explicit file: relative paths against its directory, token, namespace', async () => {
    mkdirSync(join(dir, 'pki'));
    write('pki/ca.crt', 'CA-PEM');
    write('pki/client.crt', 'CERT-PEM');
    write('pki/client.key', KEY_PEM);
    const path = write(
      'config',
      doc(
        { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key', token: TOKEN },
        {
          server: 'https://api.example:6443',
          'certificate-authority': 'pki/ca.crt',
          'tls-server-name': 'kube',
        },
      ),
    );
    const cfg = await loadKubeConfig({ path, env: {} });
    expect(cfg.server).toBe('https://api.example:6443');
    expect(cfg.namespace).toBe('ns1');
    expect(cfg.source).toBe(`${path} (context ctx)`);
    expect(cfg.certificateAuthority).toEqual({ file: join(dir, 'pki/ca.crt') });
    const creds = await configCredentials(cfg).credentials();
    expect(String(creds.tls.ca)).toBe('CA-PEM');
    expect(String(creds.tls.cert)).toBe('CERT-PEM');
    expect(String(creds.tls.key)).toBe(KEY_PEM);
    expect(creds.tls.servername).toBe('kube');
    expect(creds.headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
  });

  it('decodes inline -data fields and basic auth; insecure-skip-tls-verify turns verification off', async () => {
    const path = write(
      'config',
      doc(
        {
          'client-certificate-data': Buffer.from('CERT').toString('base64'),
          'client-key-data': Buffer.from(KEY_PEM).toString('base64'),
        },
        { server: 'https://h:1', 'insecure-skip-tls-verify': true },
      ),
    );
    const creds = await configCredentials(await loadKubeConfig({ path, env: {} })).credentials();
    expect(String(creds.tls.cert)).toBe('CERT');
    expect(String(creds.tls.key)).toBe(KEY_PEM);
    expect(creds.tls.rejectUnauthorized).toBe(false);
    const basic = write('basic', doc({ username: 'alice', password: TOKEN }));
    const b = await configCredentials(await loadKubeConfig({ path: basic, env: {} })).credentials();
    expect(b.headers['Authorization']).toBe(
      `Basic ${Buffer.from(`alice:${TOKEN}`).toString('base64')}`,
    );
  });

  it('merges $KUBECONFIG: the first file to define a name or current-context wins; missing files are skipped', async () => {
    const a = write('a', {
      clusters: [{ name: 'c', cluster: { server: 'https://first:1' } }],
      users: [{ name: 'u', user: { token: 'first' } }],
      contexts: [],
    });
    const b = write('b', doc({ token: 'second' }, { server: 'https://second:2' }));
    const cfg = await loadKubeConfig({
      env: { KUBECONFIG: [join(dir, 'absent'), a, b].join(':') },
    });
    expect(cfg.server).toBe('https://first:1');
    expect((await configCredentials(cfg).credentials()).headers['Authorization']).toBe(
      'Bearer first',
    );
    const other = await loadKubeConfig({ env: { KUBECONFIG: `${b}:${a}` } });
    expect(other.server).toBe('https://second:2');
  });

  it('selects a context by name; falls back to ~/.kube/config', async () => {
    mkdirSync(join(dir, '.kube'));
    write(
      '.kube/config',
      doc({ token: TOKEN }, undefined, {
        contexts: [
          { name: 'ctx', context: { cluster: 'c', user: 'u' } },
          { name: 'other', context: { cluster: 'c', user: 'u', namespace: 'n2' } },
        ],
      }),
    );
    expect((await loadKubeConfig({ env: { HOME: dir } })).namespace).toBeUndefined();
    expect((await loadKubeConfig({ env: { HOME: dir }, context: 'other' })).namespace).toBe('n2');
    expect(await loadError(loadKubeConfig({ env: { HOME: dir }, context: 'nope' }))).toContain(
      'context "nope" not found (contexts: ctx, other)',
    );
  });

  it('names the file when none exists', async () => {
    expect(await loadError(loadKubeConfig({ path: join(dir, 'none'), env: {} }))).toBe(
      `${join(dir, 'none')}: no such file`,
    );
    expect(await loadError(loadKubeConfig({ env: { HOME: dir } }))).toContain(
      `no kubeconfig file found (${join(dir, '.kube', 'config')})`,
    );
  });
});

describe('in-cluster service account', () => {
  it('uses KUBERNETES_SERVICE_HOST/PORT, ca.crt, the namespace file and re-reads the token file', async () => {
    write('token', 'one\n');
    write('ca.crt', 'CLUSTER-CA');
    write('namespace', 'kube-system\n');
    const cfg = await inClusterConfig(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      dir,
    );
    expect(cfg.server).toBe('https://[fd00::1]:443');
    expect(cfg.namespace).toBe('kube-system');
    let now = 0;
    const source = configCredentials(cfg, { now: () => now });
    const first = await source.credentials();
    expect(String(first.tls.ca)).toBe('CLUSTER-CA');
    expect(first.headers['Authorization']).toBe('Bearer one');
    write('token', 'two\n'); // the kubelet rotates the projected token
    now = 30_000;
    expect((await source.credentials()).headers['Authorization']).toBe('Bearer one');
    now = 61_000;
    expect((await source.credentials()).headers['Authorization']).toBe('Bearer two');
  });

  it('is chosen by loadKubeConfig when KUBECONFIG is unset and the service env is set', async () => {
    write('token', 't');
    const cfg = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', HOME: dir },
      serviceAccountDir: dir,
    });
    expect(cfg.source).toBe('in-cluster service account');
    expect(cfg.server).toBe('https://10.0.0.1:443');
  });

  it('says why outside a cluster', async () => {
    expect(await loadError(inClusterConfig({}, dir))).toContain('KUBERNETES_SERVICE_HOST');
    expect(
      await loadError(
        inClusterConfig({ KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' }, dir),
      ),
    ).toContain(`${join(dir, 'token')} does not exist`);
  });
});

describe('strict and secret-free errors', () => {
  const cases: [string, object | string, string][] = [
    [
      'an unknown user field',
      doc({ token: TOKEN, 'client-key-dta': 'x' }),
      'kubeconfig.users[0].user.client-key-dta: unknown field "client-key-dta" (did you mean "client-key-data"?)',
    ],
    [
      'an unknown top-level field',
      doc({ token: TOKEN }, undefined, { 'current-contex': 'ctx' }),
      'kubeconfig.current-contex: unknown field "current-contex" (did you mean "current-context"?)',
    ],
    [
      'a wrong type',
      doc({ token: TOKEN }, { server: 'https://h:1', 'insecure-skip-tls-verify': 'yes' }),
      'kubeconfig.clusters[0].cluster.insecure-skip-tls-verify: expected boolean',
    ],
    ['a missing server', doc({ token: TOKEN }, {}), 'clusters["c"].cluster.server: is required'],
    [
      'a server that is no URL',
      doc({ token: TOKEN }, { server: `h${TOKEN}` }),
      'clusters["c"].cluster.server: expected an http(s) URL',
    ],
    [
      'data and file both',
      doc({
        token: TOKEN,
        'client-key': 'k',
        'client-key-data': 'a2V5',
        'client-certificate': 'c',
      }),
      'set one of client-key-data and client-key, not both',
    ],
    [
      'a certificate without its key',
      doc({ 'client-certificate-data': 'Y2VydA==' }),
      'a client certificate and a client key go together',
    ],
    [
      'bad base64',
      doc({ 'client-certificate-data': 'Y2VydA==', 'client-key-data': `!${TOKEN}!` }),
      'users["u"].user.client-key-data: expected base64 data',
    ],
    [
      'two auth methods',
      doc({ token: TOKEN, exec: { command: 'x' } }),
      'more than one authentication method (token, exec); keep one',
    ],
    ['half of basic auth', doc({ password: TOKEN }), 'username and password go together'],
    [
      'insecure with a CA',
      doc(
        { token: TOKEN },
        {
          server: 'https://h:1',
          'insecure-skip-tls-verify': true,
          'certificate-authority-data': 'Y2E=',
        },
      ),
      'insecure-skip-tls-verify with a certificate authority is contradictory',
    ],
    [
      'an unsupported field',
      doc({ token: TOKEN }, { server: 'https://h:1', 'proxy-url': 'http://p:3128' }),
      'clusters["c"].cluster.proxy-url: not supported',
    ],
    ['impersonation', doc({ token: TOKEN, as: 'admin' }), 'users["u"].user.as: not supported'],
    [
      'a context naming a missing user',
      { ...doc({ token: TOKEN }), users: [] },
      'context "ctx" names user "u", which is not defined',
    ],
    [
      'no current-context',
      { ...doc({ token: TOKEN }), 'current-context': '' },
      'no current-context',
    ],
    [
      'invalid YAML on a token line',
      `users:\n- name: u\n  user: {token: "${TOKEN}"\n`,
      'not valid YAML (line',
    ],
  ];
  it.each(cases)('%s', async (_what, content, expected) => {
    const path = write('config', content);
    const msg = await loadError(loadKubeConfig({ path, env: {} }));
    expect(msg).toContain(expected);
    expect(msg.startsWith(path)).toBe(true);
  });

  it('parseKubeConfig names its source and keeps secrets out of JSON and inspect', () => {
    const bad = parseKubeConfig(YAML.stringify(doc({ token: TOKEN, tokn: 1 })), {
      source: 'Secret ns/c-kubeconfig',
    });
    expect(E.isLeft(bad) && bad.left).toMatch(
      /^Secret ns\/c-kubeconfig: kubeconfig\.users\[0\]\.user\.tokn: unknown field/,
    );
    const ok = parseKubeConfig(
      YAML.stringify(
        doc({
          token: TOKEN,
          'client-certificate-data': 'Y2VydA==',
          'client-key-data': Buffer.from(KEY_PEM).toString('base64'),
        }),
      ),
    );
    if (E.isLeft(ok)) throw new Error(ok.left);
    for (const shown of [
      JSON.stringify(ok.right),
      inspect(ok.right, { depth: 10 }),
      String(ok.right.auth.type === 'token' && ok.right.auth.token),
    ]) {
      expect(shown).not.toContain(TOKEN);
      expect(shown).not.toContain('secret-key-bytes');
      expect(shown).not.toContain(Buffer.from(KEY_PEM).toString('base64'));
    }
  });
});
