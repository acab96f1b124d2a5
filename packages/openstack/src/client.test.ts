// The client against FakeOpenStack's in-memory transport (no sockets): each auth method,
// token caching, expiry and 401 re-auth, catalog selection, and every documented Nova status.
import { ManualClock } from '@noderepair/core/testing';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { FAKE_DEFAULTS, FakeOpenStack, type FakeOpenStackOptions } from './testing/index.js';
import { createOpenStackClient, type OpenStackClientOptions } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { ActionMaybeSent, OpenStackError, ServerConflict, ServerNotFound } from './errors.js';

/** The session's clock: sleeps move it at once and are recorded in `slept`. */
function clock(start = Date.parse('2026-12-02T12:00:00Z')) {
  return new ManualClock(start, { sleepAdvances: true });
}

function setup(
  o: {
    fake?: Omit<FakeOpenStackOptions, 'now'>;
    auth?: 'password' | 'application_credential';
    region?: string;
    interface?: 'public' | 'internal' | 'admin';
    client?: Partial<OpenStackClientOptions>;
    yaml?: (fake: FakeOpenStack) => string;
  } = {},
) {
  const c = clock();
  const fake = new FakeOpenStack({ transitionDelayMs: 3000, ...o.fake, now: () => c.now() });
  const yaml = o.yaml
    ? o.yaml(fake)
    : fake.cloudsYaml({ auth: o.auth, region: o.region, interface: o.interface });
  const cloud = parseCloudsYaml(yaml, 'openstack');
  if (E.isLeft(cloud)) throw new Error(cloud.left);
  const client = createOpenStackClient(cloud.right, {
    transport: fake.transport,
    clock: c,
    ...o.client,
  });
  return { fake, client, nova: client.nova, clock: c };
}

async function rejection(p: Promise<unknown>): Promise<OpenStackError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OpenStackError) return e;
    throw e;
  }
  throw new Error('expected the promise to reject');
}

describe('Keystone authentication', () => {
  it('authenticates with a password and a project scope, then reads a server', async () => {
    const { fake, nova } = setup({ auth: 'password' });
    const id = fake.addServer({ name: 'worker-1' });
    const s = await nova.getServer(id);
    expect(s).toMatchObject({
      id,
      name: 'worker-1',
      status: 'ACTIVE',
      taskState: null,
      vmState: 'active',
      locked: false,
    });
    expect(fake.tokenIssues).toBe(1);
  });

  it('authenticates with an application credential by id', async () => {
    const { fake, nova } = setup({ auth: 'application_credential' });
    const id = fake.addServer();
    expect((await nova.getServer(id)).status).toBe('ACTIVE');
    expect(fake.tokenIssues).toBe(1);
  });

  it('authenticates with an application credential by name and user', async () => {
    const { fake, nova } = setup({
      yaml: (f) => `clouds:
  openstack:
    auth_type: v3applicationcredential
    auth:
      auth_url: ${f.authUrl}
      application_credential_name: capo-remediation
      application_credential_secret: fake-app-secret-Zp4Kw8Rt
      username: capo
      user_domain_name: Default
`,
    });
    const id = fake.addServer();
    expect((await nova.getServer(id)).id).toBe(id);
  });

  it('fails with AuthFailed and no retry when Keystone rejects the password', async () => {
    const { fake, nova } = setup({
      yaml: (f) => f.cloudsYaml().replace('fake-password-7hQx2Lm9', 'wrong-password-123'),
    });
    const id = fake.addServer();
    const e = await rejection(nova.getServer(id));
    expect(e.code).toBe('AuthFailed');
    expect(e.status).toBe(401);
    expect(fake.requests.filter((r) => r.service === 'identity')).toHaveLength(1);
  });

  it('caches the token across calls', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    await nova.getServer(id);
    await nova.getServer(id);
    await nova.reboot(id, 'SOFT');
    expect(fake.tokenIssues).toBe(1);
  });

  it('shares one authentication between concurrent callers', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    await Promise.all([nova.getServer(id), nova.getServer(id), nova.getServer(id)]);
    expect(fake.tokenIssues).toBe(1);
  });

  it('re-authenticates before the token expires, without a 401', async () => {
    const { fake, nova, clock: c } = setup({ fake: { tokenTtlSeconds: 3600 } });
    const id = fake.addServer();
    await nova.getServer(id);
    c.advance(3600_000 - 4 * 60_000); // 4 minutes left: inside the 5 minute margin
    await nova.getServer(id);
    expect(fake.tokenIssues).toBe(2);
    expect(fake.requests.some((r) => r.status === 401)).toBe(false);
  });

  it('keeps the token while it is fresh', async () => {
    const { fake, nova, clock: c } = setup({ fake: { tokenTtlSeconds: 3600 } });
    const id = fake.addServer();
    await nova.getServer(id);
    c.advance(30 * 60_000);
    await nova.getServer(id);
    expect(fake.tokenIssues).toBe(1);
  });

  it('renews a short-lived token at half its life', async () => {
    const { fake, nova, clock: c } = setup({ fake: { tokenTtlSeconds: 60 } });
    const id = fake.addServer();
    await nova.getServer(id);
    c.advance(20_000);
    await nova.getServer(id);
    expect(fake.tokenIssues).toBe(1);
    c.advance(15_000);
    await nova.getServer(id);
    expect(fake.tokenIssues).toBe(2);
  });

  it('re-authenticates once on 401 and repeats the request', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    await nova.getServer(id);
    fake.revokeTokens();
    expect((await nova.getServer(id)).id).toBe(id);
    expect(fake.tokenIssues).toBe(2);
    const compute = fake.requests.filter((r) => r.service === 'compute').map((r) => r.status);
    expect(compute).toEqual([200, 401, 200]);
  });

  it('gives up with Unauthorized when the service rejects the fresh token as well', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    fake.failNext(2, { status: 401, service: 'compute' });
    const e = await rejection(nova.getServer(id));
    expect(e.code).toBe('Unauthorized');
    expect(fake.tokenIssues).toBe(2);
  });

  it('retries Keystone outages with backoff', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    fake.failNext(2, { status: 503, service: 'identity' });
    expect((await nova.getServer(id)).id).toBe(id);
    expect(c.slept).toEqual([500, 1000]);
  });
});

describe('catalog endpoint selection', () => {
  it('uses the region and interface from clouds.yaml', async () => {
    const { fake, nova } = setup({
      fake: { regions: ['RegionOne', 'RegionTwo'] },
      region: 'RegionTwo',
      interface: 'internal',
    });
    const id = fake.addServer();
    await nova.getServer(id);
    const r = fake.requests.find((x) => x.service === 'compute');
    expect(r).toMatchObject({ region: 'RegionTwo', interface: 'internal', status: 200 });
  });

  it('names the missing region and the available ones', async () => {
    const { fake, nova } = setup({
      fake: { regions: ['RegionOne', 'RegionTwo'] },
      region: 'RegionNine',
    });
    const e = await rejection(nova.getServer(fake.addServer()));
    expect(e.code).toBe('EndpointNotFound');
    expect(e.message).toContain('RegionNine');
    expect(e.message).toContain('RegionOne, RegionTwo');
  });

  it('refuses to guess between regions when clouds.yaml names none', async () => {
    const { fake, nova } = setup({
      fake: { regions: ['RegionOne', 'RegionTwo'] },
      yaml: (f) => f.cloudsYaml().replace(/\n\s+region_name: .*\n/, '\n'),
    });
    const e = await rejection(nova.getServer(fake.addServer()));
    expect(e.code).toBe('EndpointNotFound');
    expect(e.message).toContain('region_name');
  });

  it('uses the only region when clouds.yaml names none', async () => {
    const { fake, nova } = setup({
      yaml: (f) => f.cloudsYaml().replace(/\n\s+region_name: .*\n/, '\n'),
    });
    const id = fake.addServer();
    expect((await nova.getServer(id)).id).toBe(id);
  });
});

describe('Nova status codes', () => {
  it('202: a SOFT reboot is accepted and the server goes REBOOT -> ACTIVE', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.reboot(id, 'SOFT');
    expect(await nova.getServer(id)).toMatchObject({
      status: 'REBOOT',
      taskState: 'reboot_started',
    });
    c.advance(3000);
    expect(await nova.getServer(id)).toMatchObject({ status: 'ACTIVE', taskState: null });
    expect(fake.rebootCount(id, 'SOFT')).toBe(1);
  });

  it('202: a HARD reboot of an ERROR server is accepted', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer({ status: 'ERROR' });
    await nova.reboot(id, 'HARD');
    c.advance(3000);
    expect((await nova.getServer(id)).status).toBe('ACTIVE');
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
  });

  it('202: os-stop then os-start', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.stop(id);
    c.advance(3000);
    expect((await nova.getServer(id)).status).toBe('SHUTOFF');
    await nova.start(id);
    c.advance(3000);
    expect((await nova.getServer(id)).status).toBe('ACTIVE');
    expect(fake.acceptedActions(id).map((a) => a.action)).toEqual(['os-stop', 'os-start']);
  });

  it('202: rebuild with an image', async () => {
    const { fake, nova, clock: c } = setup({ fake: { images: ['img-a'] } });
    const id = fake.addServer();
    await nova.rebuild(id, 'img-a');
    expect((await nova.getServer(id)).status).toBe('REBUILD');
    c.advance(3000);
    expect((await nova.getServer(id)).status).toBe('ACTIVE');
    expect(fake.server(id)?.imageRef).toBe('img-a');
  });

  it('400: an unknown image is a BadRequest', async () => {
    const { fake, nova } = setup({ fake: { images: ['img-a'] } });
    const e = await rejection(nova.rebuild(fake.addServer(), 'img-b'));
    expect(e.code).toBe('BadRequest');
    expect(e.status).toBe(400);
  });

  it('404: a deleted server is ServerNotFound', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    fake.deleteServer(id);
    const get = await rejection(nova.getServer(id));
    expect(get).toBeInstanceOf(ServerNotFound);
    const reboot = await rejection(nova.reboot(id, 'HARD'));
    expect(reboot).toBeInstanceOf(ServerNotFound);
    expect((reboot as ServerNotFound).serverId).toBe(id);
  });

  it("404: another project's server is ServerNotFound", async () => {
    const { fake, nova } = setup();
    const id = fake.addServer({ projectId: 'someone-else' });
    expect(await rejection(nova.getServer(id))).toBeInstanceOf(ServerNotFound);
  });

  it('403: policy forbids the action', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    fake.denyActions(id);
    const e = await rejection(nova.reboot(id, 'SOFT'));
    expect(e.code).toBe('Forbidden');
    expect(e.status).toBe(403);
  });

  it('406: an unsupported microversion', async () => {
    const { fake, nova } = setup({
      fake: { maxMicroversion: '2.60' },
      client: { microversion: '2.90' },
    });
    const e = await rejection(nova.getServer(fake.addServer()));
    expect(e.code).toBe('MicroversionNotSupported');
    expect(e.message).toContain('2.90');
  });

  it('sends the compute microversion header', async () => {
    const { fake, nova } = setup({ client: { microversion: '2.53' } });
    await nova.getServer(fake.addServer());
    expect(fake.requests.find((r) => r.service === 'compute')?.microversion).toBe('compute 2.53');
  });

  it('409: waits while a HARD reboot is in progress, then sends its own', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.reboot(id, 'HARD');
    await nova.reboot(id, 'HARD'); // 409 until the first completes (3 s); retried every 5 s
    expect(c.slept).toEqual([5000]);
    expect(fake.rebootCount(id, 'HARD')).toBe(2);
    expect(fake.requests.filter((r) => r.status === 409)).toHaveLength(1);
  });

  it('409: a SOFT reboot during a SOFT reboot waits for it', async () => {
    const { fake, nova } = setup();
    const id = fake.addServer();
    await nova.reboot(id, 'SOFT');
    await nova.reboot(id, 'SOFT');
    expect(fake.rebootCount(id, 'SOFT')).toBe(2);
  });

  it('HARD interrupts a SOFT reboot at once (Nova allows it)', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.reboot(id, 'SOFT');
    await nova.reboot(id, 'HARD');
    expect(c.slept).toEqual([]);
    expect((await nova.getServer(id)).status).toBe('HARD_REBOOT');
  });

  it('409: a locked server gives ServerConflict after the bounded retries', async () => {
    const {
      fake,
      nova,
      clock: c,
    } = setup({ client: { retry: { conflictAttempts: 3, conflictDelayMs: 1000 } } });
    const id = fake.addServer({ locked: true });
    const e = await rejection(nova.reboot(id, 'HARD'));
    expect(e).toBeInstanceOf(ServerConflict);
    expect(e.message).toContain('locked');
    expect(c.slept).toEqual([1000, 1000]);
    expect(fake.requests.filter((r) => r.status === 409)).toHaveLength(3);
  });

  it('an admin user may reboot a locked server', async () => {
    const { fake, nova } = setup({
      fake: {
        users: [{ ...FAKE_DEFAULTS.user, projects: [FAKE_DEFAULTS.project.id], admin: true }],
      },
    });
    const id = fake.addServer({ locked: true });
    await nova.reboot(id, 'HARD');
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
  });

  it('409: os-start of a running server', async () => {
    const { fake, nova } = setup({ client: { retry: { conflictAttempts: 1 } } });
    const e = await rejection(nova.start(fake.addServer()));
    expect(e.code).toBe('Conflict');
    expect(e.message).toContain('vm_state active');
  });

  it('500/503: backs off, honouring Retry-After, then succeeds', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.getServer(id);
    fake.failNext(1, { status: 503, retryAfterSeconds: 7, service: 'compute' });
    fake.failNext(1, { status: 500, service: 'compute' });
    expect((await nova.getServer(id)).id).toBe(id);
    expect(c.slept).toEqual([7000, 1000]);
  });

  it('a server action answered with a 5xx is not sent again (a proxy may have forwarded it)', async () => {
    const { fake, nova, clock: c } = setup();
    const id = fake.addServer();
    await nova.getServer(id);
    fake.failNext(1, { status: 502, service: 'compute', afterForward: true });
    const e = await rejection(nova.reboot(id, 'SOFT'));
    expect(e).toBeInstanceOf(ActionMaybeSent);
    expect(e).toMatchObject({ status: 502, maybeSent: true });
    expect(c.slept).toEqual([]);
    expect(fake.rebootCount(id)).toBe(1);
  });

  it('5xx: gives up with ServiceUnavailable after maxAttempts', async () => {
    const { fake, nova } = setup({ client: { retry: { maxAttempts: 3 } } });
    const id = fake.addServer();
    await nova.getServer(id);
    fake.failNext(5, { status: 500, service: 'compute' });
    const e = await rejection(nova.getServer(id));
    expect(e.code).toBe('ServiceUnavailable');
    expect(e.status).toBe(500);
    expect(fake.requests.filter((r) => r.injected)).toHaveLength(3);
  });

  it('timeouts: retried with backoff, then Timeout', async () => {
    const {
      fake,
      nova,
      clock: c,
    } = setup({ client: { retry: { maxAttempts: 2, timeoutMs: 20 } } });
    const id = fake.addServer();
    fake.setLatency(50);
    const e = await rejection(nova.getServer(id));
    expect(e.code).toBe('Timeout');
    expect(c.slept).toEqual([500]);
  });

  it('a reboot whose reply timed out is not sent twice', async () => {
    const warnings: Array<[Record<string, unknown>, string]> = [];
    const logger = {
      debug: () => {},
      warn: (o: Record<string, unknown>, m: string) => void warnings.push([o, m]),
    };
    const { fake, nova } = setup({ client: { retry: { timeoutMs: 20 }, logger } });
    const id = fake.addServer();
    await nova.getServer(id);
    fake.setLatency(50);
    const pending = nova.reboot(id, 'HARD');
    // The first POST took effect; lift the latency so the retry gets its 409 promptly.
    await new Promise((r) => setTimeout(r, 5));
    fake.setLatency(0);
    expect(await rejection(pending)).toBeInstanceOf(ActionMaybeSent);
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
    // The one trace of an action that may or may not have run.
    expect(warnings).toContainEqual([
      expect.objectContaining({ server: id, action: 'reboot HARD', code: 'Timeout' }),
      'no answer to the server action; not sent again',
    ]);
  });

  it('rejects a malformed microversion before any request', () => {
    const { client } = setup();
    expect(() => createOpenStackClient(client.cloud, { microversion: 'latest' })).toThrow(
      /2\.<minor>/,
    );
  });
});
