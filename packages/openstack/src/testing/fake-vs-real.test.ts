// Fixes to the fake found by running one Nova contract suite against the real testbed
// (packages/openstack-testbed, "Fake vs real") and against FakeOpenStack. Each test pins
// what real Keystone/Nova did and the fake did not.
import { describe, expect, it } from 'vitest';
import { FakeCompute, novaStatus } from './fake-openstack/fake-compute.js';
import { FakeOpenStack } from './fake-openstack/index.js';

function computeSetup(delay = 1000) {
  let t = 0;
  const compute = new FakeCompute(delay, undefined, () => t);
  return { compute, advance: (ms: number) => (t += ms) };
}

describe('FakeCompute task states and 409 texts (as real Nova)', () => {
  it('a paused compute holds a SOFT reboot in the API task state "rebooting"; resume completes it', () => {
    const { compute, advance } = computeSetup();
    const s = compute.add({}, 'p');
    compute.pauseCompute();
    expect(compute.act(s, { reboot: { type: 'SOFT' } })).toEqual({ status: 202 });
    advance(60_000);
    expect(compute.get(s.id)).toMatchObject({ taskState: 'rebooting', boots: 0 });
    expect(novaStatus(s)).toBe('REBOOT');
    compute.resumeCompute();
    expect(compute.get(s.id)).toMatchObject({ taskState: 'reboot_started', boots: 0 });
    advance(1000);
    expect(compute.get(s.id)).toMatchObject({ taskState: null, vmState: 'active', boots: 1 });
  });

  it('with a pickup delay, the API task state shows until nova-compute picks the cast up', () => {
    let t = 0;
    const compute = new FakeCompute(1000, undefined, () => t, 200);
    const s = compute.add({}, 'p');
    compute.act(s, { reboot: { type: 'HARD' } });
    expect(compute.get(s.id)?.taskState).toBe('rebooting_hard');
    t += 200;
    expect(compute.get(s.id)?.taskState).toBe('reboot_started_hard');
    t += 800;
    expect(compute.get(s.id)).toMatchObject({ taskState: null, boots: 1 });
    // Without one (the default), the compute task state shows at once.
    const quick = computeSetup().compute;
    const q = quick.add({}, 'p');
    quick.act(q, { reboot: { type: 'SOFT' } });
    expect(quick.get(q.id)?.taskState).toBe('reboot_started');
  });

  it('a paused HARD reboot shows "rebooting_hard" / HARD_REBOOT', () => {
    const { compute } = computeSetup();
    const s = compute.add({}, 'p');
    compute.pauseCompute();
    compute.act(s, { reboot: { type: 'HARD' } });
    expect(s.taskState).toBe('rebooting_hard');
    expect(novaStatus(s)).toBe('HARD_REBOOT');
  });

  it('409 names only the failing attribute: task_state for a busy server', () => {
    const { compute } = computeSetup();
    const s = compute.add({}, 'p');
    compute.pauseCompute();
    compute.act(s, { reboot: { type: 'SOFT' } });
    expect(compute.act(s, { reboot: { type: 'SOFT' } })).toEqual({
      status: 409,
      fault: 'conflictingRequest',
      message: `Cannot 'reboot' instance ${s.id} while it is in task_state rebooting`,
    });
  });

  it('409 names only the failing attribute: vm_state for a stopped server', () => {
    const { compute } = computeSetup();
    const s = compute.add({ status: 'SHUTOFF' }, 'p');
    expect(compute.act(s, { reboot: { type: 'SOFT' } })).toMatchObject({
      status: 409,
      message: `Cannot 'reboot' instance ${s.id} while it is in vm_state stopped`,
    });
    expect(compute.act(s, { 'os-stop': null })).toMatchObject({
      message: `Cannot 'stop' instance ${s.id} while it is in vm_state stopped`,
    });
  });
});

async function call(
  fake: FakeOpenStack,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const res = await fake.transport({
    method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 1000,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function token(fake: FakeOpenStack): Promise<string> {
  const d = { id: 'Default' };
  const res = await call(
    fake,
    'POST',
    `${fake.authUrl}/auth/tokens`,
    {},
    {
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: 'capo', domain: d, password: 'fake-password-7hQx2Lm9' } },
        },
        scope: { project: { name: 'capi', domain: d } },
      },
    },
  );
  expect(res.status).toBe(201);
  return res.headers.get('x-subject-token') as string;
}

describe('FakeOpenStack REST (as real Keystone/Nova)', () => {
  it('Keystone DELETE /v3/auth/tokens revokes the subject token: 204, then Nova answers 401', async () => {
    const fake = new FakeOpenStack();
    const id = fake.addServer();
    const t = await token(fake);
    const server = `${fake.computeUrl('RegionOne')}/servers/${id}`;
    expect((await call(fake, 'GET', server, { 'x-auth-token': t })).status).toBe(200);
    const del = await call(fake, 'DELETE', `${fake.authUrl}/auth/tokens`, {
      'x-auth-token': t,
      'x-subject-token': t,
    });
    expect(del.status).toBe(204);
    expect((await call(fake, 'GET', server, { 'x-auth-token': t })).status).toBe(401);
  });

  it('DELETE /v3/auth/tokens: 401 without a valid X-Auth-Token, 404 for an unknown subject', async () => {
    const fake = new FakeOpenStack();
    const t = await token(fake);
    const url = `${fake.authUrl}/auth/tokens`;
    expect((await call(fake, 'DELETE', url, { 'x-subject-token': t })).status).toBe(401);
    const unknown = await call(fake, 'DELETE', url, {
      'x-auth-token': t,
      'x-subject-token': 'nope',
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 404 } });
  });

  it('with serviceTokenCacheSeconds, compute keeps accepting a revoked token it already validated', async () => {
    let now = 0;
    const fake = new FakeOpenStack({ serviceTokenCacheSeconds: 300, now: () => now });
    const id = fake.addServer();
    const server = `${fake.computeUrl('RegionOne')}/servers/${id}`;
    const seen = await token(fake);
    const unseen = await token(fake);
    expect((await call(fake, 'GET', server, { 'x-auth-token': seen })).status).toBe(200);
    fake.revokeTokens();
    expect((await call(fake, 'GET', server, { 'x-auth-token': seen })).status).toBe(200);
    expect((await call(fake, 'GET', server, { 'x-auth-token': unseen })).status).toBe(401);
    now += 300_000;
    expect((await call(fake, 'GET', server, { 'x-auth-token': seen })).status).toBe(401);
  });

  it('Nova DELETE /servers/{id}: 204, task_state "deleting" until compute is done, then 404; a locked server answers 409', async () => {
    let now = 0;
    const fake = new FakeOpenStack({ now: () => now, transitionDelayMs: 1000 });
    const t = await token(fake);
    const id = fake.addServer();
    const locked = fake.addServer({ locked: true });
    const url = (s: string) => `${fake.computeUrl('RegionOne')}/servers/${s}`;
    expect((await call(fake, 'DELETE', url(locked), { 'x-auth-token': t })).status).toBe(409);
    expect((await call(fake, 'DELETE', url(id), { 'x-auth-token': t })).status).toBe(204);
    const deleting = await call(fake, 'GET', url(id), { 'x-auth-token': t });
    expect(JSON.parse(deleting.text).server).toMatchObject({
      status: 'ACTIVE',
      'OS-EXT-STS:task_state': 'deleting',
    });
    now += 1000;
    const gone = await call(fake, 'GET', url(id), { 'x-auth-token': t });
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.text)).toEqual({
      itemNotFound: { code: 404, message: `Instance ${id} could not be found.` },
    });
  });

  it('Nova takes a metadata update during a reboot and on SHUTOFF, refuses it while BUILD or ERROR (409 naming vm_state)', async () => {
    const fake = new FakeOpenStack({ transitionDelayMs: 1000 });
    const t = await token(fake);
    const id = fake.addServer();
    const stopped = fake.addServer({ status: 'SHUTOFF' });
    const building = fake.addServer({ status: 'BUILD' });
    const failed = fake.addServer({ status: 'ERROR' });
    const meta = (s: string) => `${fake.computeUrl('RegionOne')}/servers/${s}/metadata/k`;
    const put = (s: string) =>
      call(fake, 'PUT', meta(s), { 'x-auth-token': t }, { meta: { k: 'v' } });
    fake.pauseCompute();
    const action = `${fake.computeUrl('RegionOne')}/servers/${id}/action`;
    expect(
      (await call(fake, 'POST', action, { 'x-auth-token': t }, { reboot: { type: 'SOFT' } }))
        .status,
    ).toBe(202);
    expect(fake.server(id)?.taskState).toBe('rebooting');
    expect((await put(id)).status).toBe(200);
    expect(fake.server(id)?.metadata).toEqual({ k: 'v' });
    expect((await put(stopped)).status).toBe(200);
    const b = await put(building);
    expect(b.status).toBe(409);
    expect(JSON.parse(b.text)).toEqual({
      conflictingRequest: {
        code: 409,
        message: `Cannot 'update metadata' instance ${building} while it is in vm_state building`,
      },
    });
    expect((await put(failed)).text).toContain('while it is in vm_state error');
    expect(fake.server(building)?.metadata).toEqual({});
  });

  it('resetState(error) as Nova os-resetState: status ERROR, metadata PUT 409, a HARD reboot brings it back', async () => {
    let now = 0;
    const fake = new FakeOpenStack({ now: () => now, transitionDelayMs: 1000 });
    const t = await token(fake);
    const id = fake.addServer();
    fake.resetState(id, 'error');
    const url = `${fake.computeUrl('RegionOne')}/servers/${id}`;
    const meta = await call(
      fake,
      'PUT',
      `${url}/metadata/k`,
      { 'x-auth-token': t },
      { meta: { k: 'v' } },
    );
    expect(meta.status).toBe(409);
    expect(meta.text).toContain(
      `Cannot 'update metadata' instance ${id} while it is in vm_state error`,
    );
    const hard = await call(
      fake,
      'POST',
      `${url}/action`,
      { 'x-auth-token': t },
      { reboot: { type: 'HARD' } },
    );
    expect(hard.status).toBe(202);
    // As in Nova's status map, vm_state error shows ERROR while the reboot runs.
    expect(fake.server(id)?.status).toBe('ERROR');
    now += 1000;
    expect(fake.server(id)).toMatchObject({ status: 'ACTIVE', vmState: 'active', taskState: null });
  });

  it('Nova replies carry both version headers and a request id', async () => {
    const fake = new FakeOpenStack();
    const t = await token(fake);
    const id = fake.addServer();
    const res = await call(fake, 'GET', `${fake.computeUrl('RegionOne')}/servers/${id}`, {
      'x-auth-token': t,
      'openstack-api-version': 'compute 2.9',
    });
    expect(res.headers.get('openstack-api-version')).toBe('compute 2.9');
    expect(res.headers.get('x-openstack-nova-api-version')).toBe('2.9');
    expect(res.headers.get('x-openstack-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
    expect(res.headers.get('x-compute-request-id')).toBe(res.headers.get('x-openstack-request-id'));
  });
});
