// The client over real sockets: FakeOpenStack listening on loopback, plain HTTP and HTTPS
// with a CA bundle generated here by openssl. TLS verification is on by default.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenStack } from './testing/index.js';
import { openStackClientFromCloudsYaml, type OpenStackClient } from './client.js';
import { OpenStackError } from './errors.js';

interface Pki {
  ca: string;
  otherCa: string;
  cert: string;
  key: string;
}

function makePki(dir: string): Pki {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  for (const name of ['ca', 'other']) {
    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=noderepair test ${name} CA`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    );
  }
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
  );
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
    '-out',
    'server.crt',
  );
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.crt'),
    otherCa: read('other.crt'),
    cert: read('server.crt'),
    key: read('server.key'),
  };
}

async function failure(p: Promise<unknown>): Promise<OpenStackError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OpenStackError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('OpenStack client over HTTPS', () => {
  let dir: string;
  let pki: Pki;
  let fake: FakeOpenStack;
  const clients: OpenStackClient[] = [];
  const client = (yaml: string, caCert?: string) => {
    const c = openStackClientFromCloudsYaml(yaml, 'openstack', caCert, {
      retry: { maxAttempts: 1, timeoutMs: 5000 },
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capo-tls-'));
    pki = makePki(dir);
    fake = await FakeOpenStack.start({
      tls: { cert: pki.cert, key: pki.key },
      transitionDelayMs: 0,
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('trusts the server through the cacert from the identity Secret', async () => {
    const c = client(fake.cloudsYaml(), pki.ca);
    const id = fake.addServer();
    await c.nova.reboot(id, 'HARD');
    expect((await c.nova.getServer(id)).status).toBe('ACTIVE');
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
  });

  it('verifies TLS by default: without the CA bundle the connection is refused', async () => {
    const e = await failure(client(fake.cloudsYaml()).nova.getServer(fake.addServer()));
    expect(e.code).toBe('TransportError');
    expect(e.message).toMatch(
      /auth\/tokens: connection failed \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    expect(fake.tokenIssues).toBe(1); // only the trusted client above got a token
  });

  it('rejects a server signed by a different CA', async () => {
    const e = await failure(
      client(fake.cloudsYaml(), pki.otherCa).nova.getServer(fake.addServer()),
    );
    expect(e.code).toBe('TransportError');
  });

  it('skips verification only when clouds.yaml says verify: false', async () => {
    const c = client(`${fake.cloudsYaml()}    verify: false\n`);
    const id = fake.addServer();
    expect((await c.nova.getServer(id)).id).toBe(id);
  });
});

describe('OpenStack client over plain HTTP on loopback', () => {
  let fake: FakeOpenStack;
  let c: OpenStackClient;

  beforeAll(async () => {
    fake = await FakeOpenStack.start({ transitionDelayMs: 0 });
    c = openStackClientFromCloudsYaml(
      fake.cloudsYaml({ auth: 'application_credential' }),
      'openstack',
      undefined,
      {
        retry: { baseDelayMs: 10, timeoutMs: 2000 },
      },
    );
  });

  afterAll(async () => {
    await c?.close();
    await fake?.close();
  });

  it('honours Retry-After sent over the wire and then succeeds (a read)', async () => {
    const id = fake.addServer();
    fake.failNext(1, { status: 503, retryAfterSeconds: 1, service: 'compute' });
    const started = Date.now();
    expect((await c.nova.getServer(id)).id).toBe(id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('never resends a server action after a 503: it may have been forwarded', async () => {
    const id = fake.addServer();
    fake.failNext(1, { status: 503, retryAfterSeconds: 1, service: 'compute' });
    const e = await failure(c.nova.reboot(id, 'SOFT'));
    expect(e.maybeSent).toBe(true);
    expect(fake.rebootCount(id, 'SOFT')).toBe(0);
  });

  it('times out a slow reply and reports Timeout', async () => {
    const slow = openStackClientFromCloudsYaml(fake.cloudsYaml(), 'openstack', undefined, {
      retry: { maxAttempts: 1, timeoutMs: 100 },
    });
    try {
      fake.setLatency(400);
      const e = await failure(slow.nova.getServer(fake.addServer()));
      expect(e.code).toBe('Timeout');
    } finally {
      fake.setLatency(0);
      await slow.close();
    }
  });

  it('reports a closed port as a TransportError', async () => {
    const gone = await FakeOpenStack.start();
    const yaml = gone.cloudsYaml();
    await gone.close();
    const dead = openStackClientFromCloudsYaml(yaml, 'openstack', undefined, {
      retry: { maxAttempts: 1 },
    });
    const e = await failure(dead.nova.getServer('00000000-0000-0000-0000-000000000000'));
    expect(e.code).toBe('TransportError');
    expect(e.message).toContain('ECONNREFUSED');
    await dead.close();
  });
});
