// End-to-end: the real Keystone and Nova (fake virt driver) from testbed.sh, spoken to with
// plain fetch so that nothing here depends on our own OpenStack client.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  COMPUTE_MICROVERSION,
  computeUrl,
  issueToken,
  startOpenStackTestbed,
} from '../src/index.js';
import type { OpenStackTestbed, Token } from '../src/index.js';

let tb: OpenStackTestbed;
let token: Token;

beforeAll(async () => {
  tb = await startOpenStackTestbed();
  token = await issueToken(tb.authUrl, tb.password, tb.region);
});

// No stop here: the suite's global setup stops the testbed after the last file.

async function nova(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${computeUrl(token)}${path}`, {
    method,
    headers: {
      'x-auth-token': token.id,
      'openstack-api-version': `compute ${COMPUTE_MICROVERSION}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

interface ServerView {
  status: string;
  'OS-EXT-STS:task_state': string | null;
  'OS-EXT-STS:vm_state': string;
}

async function getServer(id: string): Promise<ServerView> {
  const res = await nova('GET', `/servers/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { server: ServerView }).server;
}

/** Polls until the server has `status` and no task in progress. */
async function waitFor(id: string, status: string, timeoutMs = 120_000): Promise<ServerView> {
  const deadline = Date.now() + timeoutMs;
  let last: ServerView | undefined;
  while (Date.now() < deadline) {
    last = await getServer(id);
    if (last.status === 'ERROR')
      throw new Error(`server ${id} went to ERROR while waiting for ${status}`);
    if (last.status === status && last['OS-EXT-STS:task_state'] === null) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `server ${id}: still ${last?.status ?? '?'} after ${timeoutMs}ms, expected ${status}`,
  );
}

async function action(id: string, body: unknown): Promise<number> {
  const res = await nova('POST', `/servers/${id}/action`, body);
  await res.arrayBuffer();
  return res.status;
}

describe('Keystone', () => {
  it('issues a project-scoped token for a password, with a compute endpoint in the catalog', async () => {
    const t = await issueToken(tb.authUrl, tb.password, tb.region);
    expect(t.id.length).toBeGreaterThan(20);
    expect(Date.parse(t.expiresAt)).toBeGreaterThan(Date.now());
    expect(t.endpoints['compute']).toMatch(/^http:\/\/127\.0\.0\.1:8774\/v2\.1/);
  });

  it('issues a token for the application credential', async () => {
    const t = await issueToken(tb.authUrl, tb.applicationCredential, tb.region);
    expect(t.id.length).toBeGreaterThan(20);
    expect(t.endpoints['compute']).toBeDefined();
  });

  it('rejects a wrong password with 401', async () => {
    await expect(
      issueToken(tb.authUrl, { ...tb.password, password: 'wrong' }, tb.region),
    ).rejects.toThrow(/HTTP 401/);
  });

  it('writes a clouds.yaml with a password cloud and an application-credential cloud', () => {
    expect(tb.cloudsYaml).toContain('auth_type: password');
    expect(tb.cloudsYaml).toContain('auth_type: v3applicationcredential');
    expect(tb.cloudsYaml).toContain(`application_credential_id: ${tb.applicationCredential.id}`);
  });
});

describe('Nova with the fake virt driver', () => {
  it('creates a server that goes ACTIVE, reboots, rejects a conflicting reboot, stops, starts and deletes', async () => {
    const create = await nova('POST', '/servers', {
      server: {
        name: 'e2e-lifecycle',
        flavorRef: await flavorId(tb.flavor),
        imageRef: await imageId(tb.image),
        networks: 'none',
      },
    });
    expect(create.status).toBe(202);
    const id = ((await create.json()) as { server: { id: string } }).server.id;
    expect((await waitFor(id, 'ACTIVE'))['OS-EXT-STS:vm_state']).toBe('active');

    // SOFT reboot, with the compute host frozen so the reboot stays in progress: the API
    // has set task_state=reboot_pending and a second reboot conflicts.
    await tb.pauseCompute();
    let soft: number;
    let second: number;
    let during: ServerView;
    try {
      soft = await action(id, { reboot: { type: 'SOFT' } });
      during = await getServer(id);
      second = await action(id, { reboot: { type: 'SOFT' } });
    } finally {
      await tb.resumeCompute();
    }
    expect(soft).toBe(202);
    expect(during.status).toBe('REBOOT');
    expect(second).toBe(409);
    await waitFor(id, 'ACTIVE');

    // HARD reboot from ACTIVE, not frozen: the fake driver completes it.
    expect(await action(id, { reboot: { type: 'HARD' } })).toBe(202);
    await waitFor(id, 'ACTIVE');

    expect(await action(id, { 'os-start': null })).toBe(409); // needs SHUTOFF
    expect(await action(id, { 'os-stop': null })).toBe(202);
    expect((await waitFor(id, 'SHUTOFF'))['OS-EXT-STS:vm_state']).toBe('stopped');
    expect(await action(id, { reboot: { type: 'SOFT' } })).toBe(409); // SOFT needs ACTIVE
    expect(await action(id, { 'os-start': null })).toBe(202);
    await waitFor(id, 'ACTIVE');

    // Nova's own records: exactly the two accepted reboots, none for the rejected ones.
    const actions = (await tb.novaActions(id)).map((a) => a.action);
    expect(actions).toEqual(['create', 'reboot', 'reboot', 'stop', 'start']);

    const del = await nova('DELETE', `/servers/${id}`);
    expect(del.status).toBe(204);
    const deadline = Date.now() + 120_000;
    let status = 200;
    while (Date.now() < deadline && status !== 404) {
      const res = await nova('GET', `/servers/${id}`);
      await res.arrayBuffer();
      status = res.status;
      if (status !== 404) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(404);
    expect(await action(id, { reboot: { type: 'SOFT' } })).toBe(404);
  });

  it('createServer returns the uuid of a server Nova knows', async () => {
    const id = await tb.createServer('e2e-helper');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await waitFor(id, 'ACTIVE');
    expect((await tb.novaActions(id)).map((a) => a.action)).toEqual(['create']);
    const del = await nova('DELETE', `/servers/${id}`);
    expect(del.status).toBe(204);
  });

  it('createServers creates many with one script, the uuids in the order of the names', async () => {
    const names = ['e2e-many-0', 'e2e-many-1', 'e2e-many-2', 'e2e-many-3', 'e2e-many-4'];
    const ids = await tb.createServers(names);
    expect(new Set(ids).size).toBe(names.length);
    for (const [i, id] of ids.entries()) {
      const res = await nova('GET', `/servers/${id}`);
      expect(((await res.json()) as { server: { name: string } }).server.name).toBe(names[i]);
    }
    for (const id of ids) expect((await nova('DELETE', `/servers/${id}`)).status).toBe(204);
  });

  // A CI run lost a test to this: start returned while Nova still called the compute "up" on
  // the heartbeat of the process it had just replaced; that heartbeat aged past Nova's 60 s
  // service_down_time before the new process reported, and the next build got NoValidHost.
  // Here the old heartbeat is let go stale on purpose: start-service must not return until the
  // new process has reported, so a build right after it goes ACTIVE.
  it('a restarted nova-compute takes a build as soon as start-service returns (its own heartbeat, not the old one)', async () => {
    await tb.stopServices(['nova-compute']);
    try {
      const deadline = Date.now() + 150_000;
      while ((await tb.computeServiceUp()) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 2_000));
      expect(await tb.computeServiceUp()).toBe(false);
    } finally {
      await tb.startServices(['nova-compute']);
    }
    expect(await tb.computeServiceUp()).toBe(true);
    const id = await tb.createServer('e2e-after-compute-restart');
    expect((await tb.waitForServer(id, 'ACTIVE')).status).toBe('ACTIVE');
    expect((await nova('DELETE', `/servers/${id}`)).status).toBe(204);
  }, 300_000);
});

async function flavorId(name: string): Promise<string> {
  const res = await nova('GET', '/flavors');
  const flavors = ((await res.json()) as { flavors: Array<{ id: string; name: string }> }).flavors;
  const f = flavors.find((x) => x.name === name);
  if (f === undefined) throw new Error(`flavor ${name} not found`);
  return f.id;
}

async function imageId(name: string): Promise<string> {
  const url = token.endpoints['image'];
  if (url === undefined) throw new Error('no image endpoint in the catalog');
  const res = await fetch(`${url.replace(/\/$/, '')}/v2/images?name=${encodeURIComponent(name)}`, {
    headers: { 'x-auth-token': token.id },
  });
  const images = ((await res.json()) as { images: Array<{ id: string }> }).images;
  const first = images[0];
  if (first === undefined) throw new Error(`image ${name} not found`);
  return first.id;
}
