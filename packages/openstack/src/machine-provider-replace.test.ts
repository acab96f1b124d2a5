// Replace = delete the Nova server, against FakeOpenStack (a FAKE Nova: DELETE answers 204,
// the server shows task "deleting" until the fake compute removes it, nova-api's `delete`
// record stays listable from microversion 2.21). The same proofs run against the real Nova
// of the testbed in openstack-testbed/test/nova-replace.e2e.test.ts.
import { ManualClock } from '@noderepair/core/testing';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '@noderepair/core/provider';
import { FakeOpenStack } from './testing/index.js';
import { createOpenStackClient } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { NovaMachineProvider } from './machine-provider.js';
import type { Transport } from './transport.js';

function setup(opts: { transitionDelayMs?: number; wrap?: (t: Transport) => Transport } = {}) {
  const clock = new ManualClock(Date.parse('2026-12-05T04:00:00Z'), { sleepAdvances: true });
  const fake = new FakeOpenStack({
    transitionDelayMs: opts.transitionDelayMs ?? 5_000,
    now: () => clock.now(),
  });
  const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
  if (E.isLeft(cloud)) throw new Error(cloud.left);
  // A fresh client and provider per call: what a restarted controller has.
  const provider = (deletes = true) =>
    new NovaMachineProvider(
      createOpenStackClient(cloud.right, {
        transport: opts.wrap ? opts.wrap(fake.transport) : fake.transport,
        clock,
        retry: { conflictAttempts: 1, maxAttempts: 3 },
      }).nova,
      deletes ? { replace: 'DeleteServer' } : {},
    );
  /** DELETE requests that reached the fake Nova (not injected faults). */
  const deletesSent = (id: string) =>
    fake.requests.filter(
      (r) => r.method === 'DELETE' && r.serverId === id && !r.injected && r.service === 'compute',
    ).length;
  const deleteRecords = (id: string) =>
    fake.instanceActions(id).filter((a) => a.action === 'delete');
  return {
    fake,
    cloud: cloud.right,
    provider,
    deletesSent,
    deleteRecords,
    now: () => clock.now(),
    advance: (ms: number) => clock.advance(ms),
  };
}

const ctx = { signal: new AbortController().signal };

function replace(serverId: string, issuedAt: number, replay = false): ActionRequest {
  return {
    node: 'node-a',
    providerID: `openstack:///${serverId}`,
    action: 'Replace',
    actionId: 'u/step-3/attempt-1',
    issuedAt,
    replay,
  };
}

describe('NovaMachineProvider Replace: off by default (capo-remediation, Cluster API replaces)', () => {
  it('Replace is not among the actions, execute is Rejected without a request, fence NotFenced', async () => {
    const { fake, provider, deletesSent, now } = setup();
    const id = fake.addServer();
    const p = provider(false);
    expect(p.actions.has('Replace')).toBe(false);
    expect(await p.execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Rejected',
      message: expect.stringContaining('Cluster API'),
    });
    expect(await p.fence(replace(id, now()), ctx)).toMatchObject({ kind: 'NotFenced' });
    expect(deletesSent(id)).toBe(0);
    expect(fake.server(id)?.status).toBe('ACTIVE');
  });
});

describe("NovaMachineProvider Replace: 'DeleteServer'", () => {
  it("deletes the server once: Accepted with the request id of Nova's delete record; the same id again sends nothing", async () => {
    const { fake, provider, deletesSent, deleteRecords, now } = setup();
    const id = fake.addServer();
    const p = provider();
    expect(p.actions.has('Replace')).toBe(true);
    const out = await p.execute(replace(id, now()), ctx);
    expect(out).toMatchObject({ kind: 'Accepted', message: expect.stringContaining('accepted') });
    expect(deleteRecords(id)).toEqual([
      { action: 'delete', requestId: (out as { ref?: string }).ref },
    ]);
    expect(fake.server(id)?.taskState).toBe('deleting');
    expect(await p.execute(replace(id, now()), ctx)).toEqual(out);
    expect(deletesSent(id)).toBe(1);
  });

  it('a replay while Nova is still deleting, and after the server is gone: Accepted, no second DELETE', async () => {
    const { fake, provider, deletesSent, now, advance } = setup();
    const id = fake.addServer();
    const issuedAt = now();
    await provider().execute(replace(id, issuedAt), ctx);
    advance(1_000);
    expect(await provider().execute(replace(id, issuedAt, true), ctx)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('being deleted (task deleting); no DELETE sent'),
    });
    advance(10_000);
    expect(fake.server(id)).toBeUndefined();
    expect(await provider().execute(replace(id, issuedAt, true), ctx)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('not found'),
    });
    expect(deletesSent(id)).toBe(1);
  });

  it("a replay finds the delete in os-instance-actions even when the server is back to ACTIVE (Nova's delete failed): not sent again", async () => {
    const { fake, provider, deletesSent, deleteRecords, now, advance } = setup();
    const id = fake.addServer();
    const issuedAt = now();
    await provider().execute(replace(id, issuedAt), ctx);
    fake.resetState(id, 'active'); // the delete did not complete; the record stays
    advance(2_000);
    const out = await provider().execute(replace(id, issuedAt, true), ctx);
    expect(out).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('Nova recorded delete'),
      ref: deleteRecords(id)[0]?.requestId,
    });
    expect(deletesSent(id)).toBe(1);
  });

  it('a replay with nothing in Nova (the first send never left) sends the DELETE once', async () => {
    const { fake, provider, deletesSent, now, advance } = setup();
    const id = fake.addServer();
    const issuedAt = now();
    advance(3_000);
    expect(await provider().execute(replace(id, issuedAt, true), ctx)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('accepted'),
    });
    expect(deletesSent(id)).toBe(1);
  });

  it('a 502 on the DELETE itself after Nova acted: not resent, looked up, Accepted from the records', async () => {
    const { fake, provider, deletesSent, deleteRecords, now } = setup({
      wrap: (inner) => async (req) => {
        if (req.method === 'DELETE') {
          await inner(req); // Nova acts, the proxy loses the reply
          return new Response('<html>502 Bad Gateway</html>', { status: 502 });
        }
        return inner(req);
      },
    });
    const id = fake.addServer();
    const out = await provider().execute(replace(id, now()), ctx);
    expect(out).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('no DELETE sent'),
    });
    expect(deletesSent(id)).toBe(1);
    expect(deleteRecords(id)).toHaveLength(1);
  });

  it('a 503 on the DELETE before Nova acted: Unavailable maybeSent, nothing resent; the replay asks, then sends once', async () => {
    let fail = 1;
    const { fake, provider, deletesSent, now, advance } = setup({
      wrap: (inner) => async (req) => {
        if (req.method === 'DELETE' && fail > 0) {
          fail -= 1;
          return new Response('', { status: 503 });
        }
        return inner(req);
      },
    });
    const id = fake.addServer();
    const issuedAt = now();
    const first = await provider().execute(replace(id, issuedAt), ctx);
    expect(first).toMatchObject({ kind: 'Unavailable', maybeSent: true });
    expect(deletesSent(id)).toBe(0);
    expect(fake.server(id)?.status).toBe('ACTIVE');
    advance(10_000);
    expect(await provider().execute(replace(id, issuedAt, true), ctx)).toMatchObject({
      kind: 'Accepted',
    });
    expect(deletesSent(id)).toBe(1);
  });

  it('404 on the DELETE itself (gone between the look and the send): Accepted, already gone', async () => {
    const { fake, provider, deletesSent, now } = setup({
      wrap: (inner) => async (req) => {
        if (req.method === 'DELETE')
          fake.deleteServer(new URL(req.url).pathname.split('/').pop() ?? '');
        return inner(req);
      },
    });
    const id = fake.addServer();
    expect(await provider().execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('already gone'),
    });
    expect(deletesSent(id)).toBe(1);
  });

  it('a server Nova does not show at all: Accepted without a DELETE (the machine is gone)', async () => {
    const { provider, fake, now } = setup();
    const out = await provider().execute(
      replace('00000000-0000-0000-0000-000000000000', now()),
      ctx,
    );
    expect(out).toMatchObject({ kind: 'Accepted', message: expect.stringContaining('not found') });
    expect(fake.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });

  it('a locked server (409) is Rejected: an answer about the action', async () => {
    const { fake, provider, deletesSent, now } = setup();
    const id = fake.addServer({ locked: true });
    expect(await provider().execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Rejected',
      message: expect.stringContaining('Conflict'),
    });
    expect(deletesSent(id)).toBe(1);
    expect(fake.server(id)?.status).toBe('ACTIVE');
  });

  it('outages are Unavailable, never Rejected: Keystone down, Nova 5xx, 401, 429', async () => {
    let throttle = false;
    const { fake, provider, deletesSent, now } = setup({
      wrap: (inner) => async (req) =>
        throttle && req.method === 'DELETE'
          ? new Response('{"overLimit":{"code":429,"message":"slow down"}}', {
              status: 429,
              headers: { 'retry-after': '5' },
            })
          : inner(req),
    });
    const id = fake.addServer();
    fake.failNext(3, { status: 503, service: 'identity' });
    expect(await provider().execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Unavailable',
      maybeSent: false,
    });
    fake.failNext(3, { status: 500, service: 'compute' });
    expect(await provider().execute(replace(id, now(), true), ctx)).toMatchObject({
      kind: 'Unavailable',
      maybeSent: true, // a replay stays "maybe sent" until Nova has answered
    });
    fake.setOutage({ status: 401, service: 'compute' });
    expect(await provider().execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Unavailable',
    });
    fake.setOutage(undefined);
    throttle = true;
    expect(await provider().execute(replace(id, now()), ctx)).toMatchObject({
      kind: 'Unavailable',
    });
    expect(deletesSent(id)).toBe(0);
    expect(fake.server(id)?.status).toBe('ACTIVE');
  });

  it('an aborted call sends nothing and is Unavailable', async () => {
    const { fake, provider, deletesSent, now } = setup();
    const id = fake.addServer();
    const ac = new AbortController();
    ac.abort();
    expect(await provider().execute(replace(id, now()), { signal: ac.signal })).toMatchObject({
      kind: 'Unavailable',
    });
    expect(deletesSent(id)).toBe(0);
  });

  it('a cloud that soft-deletes (reclaim_instance_interval): SOFT_DELETED is PoweredOff, a replay sends nothing', async () => {
    const { fake, provider, deletesSent, now, advance } = setup();
    fake.setReclaimInstanceInterval(3600);
    const id = fake.addServer();
    const issuedAt = now();
    await provider().execute(replace(id, issuedAt), ctx);
    expect(fake.server(id)?.taskState).toBe('soft-deleting');
    advance(10_000);
    expect(fake.server(id)?.status).toBe('SOFT_DELETED');
    expect(await provider().fence(replace(id, issuedAt), ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'PoweredOff',
      evidence: expect.stringContaining('SOFT_DELETED'),
    });
    expect(await provider().execute(replace(id, issuedAt, true), ctx)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('SOFT_DELETED'),
    });
    expect(deletesSent(id)).toBe(1);
  });
});

describe("NovaMachineProvider fence after Replace ('DeleteServer')", () => {
  it('NotFenced while the server exists or is being deleted; Deleted once gone, with the delete record as evidence', async () => {
    const { fake, provider, deleteRecords, now, advance } = setup();
    const id = fake.addServer();
    const q = replace(id, now());
    expect(await provider().fence(q, ctx)).toMatchObject({
      kind: 'NotFenced',
      reason: expect.stringContaining('ACTIVE'),
    });
    await provider().execute(q, ctx);
    expect(await provider().fence(q, ctx)).toMatchObject({
      kind: 'NotFenced',
      reason: expect.stringContaining('task deleting'),
    });
    advance(10_000);
    const f = await provider().fence(q, ctx);
    expect(f).toMatchObject({ kind: 'Fenced', how: 'Deleted' });
    expect(f.kind === 'Fenced' && f.evidence).toContain(deleteRecords(id)[0]?.requestId);
    // The deleted server's records are read with microversion 2.21 (404 below it).
    const listed = fake.requests.filter((r) => r.path.endsWith('/os-instance-actions')).at(-1);
    expect(listed).toMatchObject({ status: 200, microversion: 'compute 2.21' });
  });

  it('deleted out of band (no delete record, Nova still lists it as deleted): Deleted', async () => {
    const { fake, provider, now, cloud } = setup();
    const id = fake.addServer();
    fake.deleteServer(id);
    // Below 2.21 Nova does not list a deleted server's actions: the provider must ask with 2.21.
    const client = createOpenStackClient(cloud, {
      transport: fake.transport,
      clock: new ManualClock(Date.now(), { sleepAdvances: true }),
    });
    await expect(client.nova.listInstanceActions(id)).rejects.toMatchObject({
      code: 'ServerNotFound',
    });
    expect(await client.nova.listInstanceActions(id, { includeDeleted: true })).toEqual([]);
    expect(await provider().fence(replace(id, now()), ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'Deleted',
      evidence: expect.stringContaining('deleted server of this project'),
    });
  });

  it("404 with no records at all (another project's server, wrong credentials) is NOT fenced", async () => {
    const { fake, provider, now } = setup();
    const other = fake.addServer({ projectId: 'f0000000000000000000000000000099' });
    const f = await provider().fence(replace(other, now()), ctx);
    expect(f).toMatchObject({
      kind: 'NotFenced',
      reason: expect.stringContaining('not taken as deleted'),
    });
    expect(fake.server(other)?.status).toBe('ACTIVE');
  });

  it('could not ask is Unavailable, also when the server is gone but its records cannot be read', async () => {
    let recordsDown = false;
    const { fake, provider, now } = setup({
      wrap: (inner) => async (req) =>
        recordsDown && req.url.includes('/os-instance-actions')
          ? new Response('', { status: 503 })
          : inner(req),
    });
    const id = fake.addServer();
    fake.failNext(3, { status: 503 });
    expect(await provider().fence(replace(id, now()), ctx)).toMatchObject({ kind: 'Unavailable' });
    fake.deleteServer(id);
    recordsDown = true;
    expect(await provider().fence(replace(id, now()), ctx)).toMatchObject({ kind: 'Unavailable' });
    recordsDown = false;
    expect(await provider().fence(replace(id, now()), ctx)).toMatchObject({ kind: 'Fenced' });
  });
});
