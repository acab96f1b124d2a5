// NovaMachineProvider against FakeOpenStack (a FAKE Nova following the compute API; the same
// behaviours run against the real Nova of the testbed in openstack-testbed's e2e suite):
// outages are Unavailable, a 5xx after the request left is never resent and is looked up in
// os-instance-actions, a replay asks Nova first, and fencing is reported from Nova's state.
import { ManualClock } from '@noderepair/core/testing';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { ActionRequest, ProviderAction } from '@noderepair/core/provider';
import { FakeOpenStack } from './testing/index.js';
import { createOpenStackClient } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { NovaMachineProvider } from './machine-provider.js';
import type { Transport } from './transport.js';

function setup(
  opts: { transitionDelayMs?: number; region?: string; wrap?: (t: Transport) => Transport } = {},
) {
  const clock = new ManualClock(Date.parse('2026-12-05T04:00:00Z'), { sleepAdvances: true });
  const fake = new FakeOpenStack({
    transitionDelayMs: opts.transitionDelayMs ?? 0,
    now: () => clock.now(),
  });
  const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
  if (E.isLeft(cloud)) throw new Error(cloud.left);
  // A fresh client and provider per call: what a restarted controller has.
  const provider = () =>
    new NovaMachineProvider(
      createOpenStackClient(cloud.right, {
        transport: opts.wrap ? opts.wrap(fake.transport) : fake.transport,
        clock,
        retry: { conflictAttempts: 1, maxAttempts: 3 },
      }).nova,
      opts.region !== undefined ? { region: opts.region } : {},
    );
  return { fake, provider, now: () => clock.now(), advance: (ms: number) => clock.advance(ms) };
}

const ctx = { signal: new AbortController().signal };

function req(
  serverId: string,
  actionId: string,
  issuedAt: number,
  action: ProviderAction = 'HardReboot',
): ActionRequest {
  return {
    node: 'node-a',
    providerID: `openstack:///${serverId}`,
    action,
    actionId,
    issuedAt,
    replay: false,
  };
}

describe('NovaMachineProvider.execute', () => {
  it('HardReboot: Accepted with the request id Nova recorded in os-instance-actions', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    const out = await provider().execute(req(id, 'u/step-0/attempt-1', now()), ctx);
    expect(out).toMatchObject({ kind: 'Accepted' });
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
    expect(fake.instanceActions(id)).toEqual([
      { action: 'reboot', requestId: (out as { ref?: string }).ref },
    ]);
    // Nothing is written to the server's metadata any more.
    expect(fake.server(id)?.metadata).toEqual({});
  });

  it('PowerOff is os-stop; Rebuild needs an image; Replace is Rejected', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    expect(await provider().execute(req(id, 'a', now(), 'PowerOff'), ctx)).toMatchObject({
      kind: 'Accepted',
    });
    expect(fake.instanceActions(id).map((a) => a.action)).toEqual(['stop']);
    expect(await provider().execute(req(id, 'b', now(), 'Rebuild'), ctx)).toMatchObject({
      kind: 'Rejected',
    });
    expect(await provider().execute(req(id, 'c', now(), 'Replace'), ctx)).toMatchObject({
      kind: 'Rejected',
    });
  });

  it('a 502 after the request was forwarded: not resent, found in os-instance-actions, Accepted', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    await provider().fence(req(id, 'warm', now()), ctx); // token issued: the fault hits the POST
    fake.failNext(1, { status: 502, service: 'compute', afterForward: true });
    const out = await provider().execute(req(id, 'u/step-0/attempt-1', now()), ctx);
    expect(out).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('not sent again'),
    });
    expect(fake.rebootCount(id)).toBe(1);
    expect(fake.requests.filter((r) => r.action === 'reboot')).toHaveLength(1);
  });

  it('a 503 before Nova acted: not resent in the call, Unavailable maybeSent; the replay asks, then sends once', async () => {
    const { fake, provider, now, advance } = setup();
    const id = fake.addServer();
    const issuedAt = now();
    await provider().fence(req(id, 'warm', now()), ctx);
    fake.failNext(1, { status: 503, service: 'compute' });
    const first = await provider().execute(req(id, 'u/step-0/attempt-1', issuedAt), ctx);
    expect(first).toMatchObject({ kind: 'Unavailable', maybeSent: true });
    expect(fake.rebootCount(id)).toBe(0);
    advance(10_000);
    const again = await provider().execute(
      { ...req(id, 'u/step-0/attempt-1', issuedAt), replay: true },
      ctx,
    );
    expect(again).toMatchObject({ kind: 'Accepted' });
    expect(fake.rebootCount(id)).toBe(1);
  });

  it('a replay of an action Nova already has is not sent again (restarted controller)', async () => {
    const { fake, provider, now, advance } = setup();
    const id = fake.addServer();
    const issuedAt = now();
    await provider().execute(req(id, 'u/step-0/attempt-1', issuedAt), ctx);
    advance(3_000);
    const replay = await provider().execute(
      { ...req(id, 'u/step-0/attempt-1', issuedAt), replay: true },
      ctx,
    );
    expect(replay).toMatchObject({ kind: 'Accepted', message: expect.stringContaining('already') });
    expect(fake.rebootCount(id)).toBe(1);
    // A later attempt (its intent persisted after the first reboot) reboots again.
    advance(60_000);
    const next = await provider().execute(
      { ...req(id, 'u/step-0/attempt-2', now()), replay: true },
      ctx,
    );
    expect(next).toMatchObject({ kind: 'Accepted' });
    expect(fake.rebootCount(id)).toBe(2);
  });

  it('Keystone or Nova down: Unavailable, nothing sent, not Rejected', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    fake.failNext(3, { status: 503, service: 'identity' });
    expect(await provider().execute(req(id, 'a', now()), ctx)).toMatchObject({
      kind: 'Unavailable',
      maybeSent: false,
    });
    fake.failNext(3, { status: 500, service: 'compute' });
    expect(await provider().execute({ ...req(id, 'a', now()), replay: true }, ctx)).toMatchObject({
      kind: 'Unavailable',
      maybeSent: false,
    });
    expect(fake.rebootCount(id)).toBe(0);
  });

  it('answers about the action itself are Rejected: server gone (404), state conflict (409)', async () => {
    const { fake, provider, now } = setup();
    const stopped = fake.addServer({ status: 'SHUTOFF' });
    expect(await provider().execute(req(stopped, 'a', now(), 'SoftReboot'), ctx)).toMatchObject({
      kind: 'Rejected',
      message: expect.stringContaining('Conflict'),
    });
    expect(
      await provider().execute(req('00000000-0000-0000-0000-000000000000', 'b', now()), ctx),
    ).toMatchObject({ kind: 'Rejected', message: expect.stringContaining('ServerNotFound') });
  });
});

describe('NovaMachineProvider.fence', () => {
  it('SoftReboot never fences', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    expect(await provider().fence(req(id, 'a', now(), 'SoftReboot'), ctx)).toMatchObject({
      kind: 'NotFenced',
    });
  });

  it('HardReboot: NotFenced until Nova finished it and the server is ACTIVE, then ResetObserved', async () => {
    const { fake, provider, now, advance } = setup({ transitionDelayMs: 5_000 });
    const id = fake.addServer();
    const q = req(id, 'u/step-0/attempt-1', now());
    expect(await provider().fence(q, ctx)).toMatchObject({ kind: 'NotFenced' });
    await provider().execute(q, ctx);
    advance(1_000);
    expect(await provider().fence(q, ctx)).toMatchObject({ kind: 'NotFenced' });
    advance(5_000);
    expect(await provider().fence(q, ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'ResetObserved',
    });
  });

  it('SHUTOFF is PoweredOff, an outage is Unavailable', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer({ status: 'SHUTOFF' });
    expect(await provider().fence(req(id, 'a', now(), 'PowerOff'), ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'PoweredOff',
    });
    fake.failNext(3, { status: 503 });
    expect(await provider().fence(req(id, 'a', now()), ctx)).toMatchObject({
      kind: 'Unavailable',
    });
  });

  // A 404 alone is not a fence, after any action: Nova answers 404 for another project's
  // server too (wrong credentials), and that machine may be running.
  for (const action of ['HardReboot', 'PowerOff', 'Rebuild'] as const)
    it(`${action}: a 404 with no records of the server in this project is NOT fenced`, async () => {
      const { fake, provider, now } = setup();
      const other = fake.addServer({ projectId: 'f0000000000000000000000000000099' });
      const f = await provider().fence(req(other, 'a', now(), action), ctx);
      expect(f).toMatchObject({
        kind: 'NotFenced',
        reason: expect.stringContaining('not taken as deleted'),
      });
      expect(fake.server(other)?.status).toBe('ACTIVE');
      // The deleted server's records were asked for with microversion 2.21 and Nova said 404.
      const listed = fake.requests.filter((r) => r.path.endsWith('/os-instance-actions')).at(-1);
      expect(listed).toMatchObject({ status: 404, microversion: 'compute 2.21' });
    });

  it("a 404 is Deleted when Nova lists the server as this project's deleted server", async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    await provider().execute(req(id, 'u/step-0/attempt-1', now()), ctx);
    fake.deleteServer(id);
    const f = await provider().fence(req(id, 'u/step-0/attempt-1', now()), ctx);
    expect(f).toMatchObject({
      kind: 'Fenced',
      how: 'Deleted',
      evidence: expect.stringContaining('deleted server of this project'),
    });
    const listed = fake.requests.filter((r) => r.path.endsWith('/os-instance-actions')).at(-1);
    expect(listed).toMatchObject({ status: 200, microversion: 'compute 2.21' });
  });

  it('a 404 whose records cannot be read is Unavailable, not Deleted', async () => {
    let recordsDown = true;
    const { fake, provider, now } = setup({
      wrap: (inner) => async (r) =>
        recordsDown && r.url.includes('/os-instance-actions')
          ? new Response('', { status: 503 })
          : inner(r),
    });
    const id = fake.addServer();
    fake.deleteServer(id);
    expect(await provider().fence(req(id, 'a', now()), ctx)).toMatchObject({
      kind: 'Unavailable',
    });
    recordsDown = false;
    expect(await provider().fence(req(id, 'a', now()), ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'Deleted',
    });
  });
});

describe('NovaMachineProvider: a providerID of another region', () => {
  const inRegion = (serverId: string, region: string, action: ProviderAction = 'HardReboot') => ({
    ...req(serverId, 'u/step-0/attempt-1', Date.parse('2026-12-05T04:00:00Z'), action),
    providerID: `openstack://${region}/${serverId}`,
  });

  it('fence is NotFenced naming both regions, without asking Nova', async () => {
    const { fake, provider } = setup({ region: 'RegionOne' });
    const id = fake.addServer({ status: 'SHUTOFF' });
    const f = await provider().fence(inRegion(id, 'RegionTwo', 'PowerOff'), ctx);
    expect(f).toMatchObject({ kind: 'NotFenced' });
    expect(f.kind === 'NotFenced' && f.reason).toMatch(/"RegionTwo".*"RegionOne"/);
    expect(fake.requests.filter((r) => r.service === 'compute')).toEqual([]);
  });

  it('execute sends nothing and is Unavailable (no attempt used, never Rejected), also on a replay', async () => {
    const { fake, provider } = setup({ region: 'RegionOne' });
    const id = fake.addServer();
    for (const action of ['HardReboot', 'PowerOff', 'Rebuild'] as const) {
      const out = await provider().execute(
        { ...inRegion(id, 'RegionTwo', action), image: 'img' },
        ctx,
      );
      expect(out).toMatchObject({
        kind: 'Unavailable',
        maybeSent: false,
        message: expect.stringMatching(/"RegionTwo".*"RegionOne"/),
      });
    }
    expect(
      await provider().execute({ ...inRegion(id, 'RegionTwo'), replay: true }, ctx),
    ).toMatchObject({ kind: 'Unavailable', maybeSent: true });
    expect(fake.requests.filter((r) => r.service === 'compute')).toEqual([]);
    expect(fake.instanceActions(id)).toEqual([]);
  });

  it('the same region, or a providerID without one, is acted on', async () => {
    const { fake, provider } = setup({ region: 'RegionOne' });
    const id = fake.addServer();
    expect(await provider().execute(inRegion(id, 'RegionOne'), ctx)).toMatchObject({
      kind: 'Accepted',
    });
    expect(
      await provider().execute(
        req(id, 'u/step-0/attempt-2', Date.parse('2026-12-05T04:01:00Z')),
        ctx,
      ),
    ).toMatchObject({ kind: 'Accepted' });
    expect(fake.rebootCount(id, 'HARD')).toBe(2);
  });
});

describe('NovaMachineProvider.powerState', () => {
  const ref = (serverId: string) => ({ node: 'node-a', providerID: `openstack:///${serverId}` });

  it("ACTIVE is On; an operator's os-stop is Off by request, since the stop", async () => {
    const { fake, provider, now, advance } = setup();
    const id = fake.addServer();
    expect(await provider().powerState(ref(id), ctx)).toEqual({ kind: 'On' });
    const stopped = await provider().execute(req(id, 'op/stop', now(), 'PowerOff'), ctx);
    expect(stopped).toMatchObject({ kind: 'Accepted' });
    const stoppedAt = Math.floor(now() / 1000) * 1000;
    advance(60_000);
    const p = await provider().powerState(ref(id), ctx);
    expect(p).toMatchObject({ kind: 'Off', byRequest: true, since: stoppedAt });
    expect(p.kind === 'Off' && p.evidence).toMatch(/SHUTOFF since .* requested through the API/);
  });

  it('a stop this provider sent (a PowerOff step) is ours: Off, not by request, and the evidence says so', async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    const p = provider();
    const out = await p.execute(req(id, 'n/1/PowerOff-1', now(), 'PowerOff'), ctx);
    expect(out).toMatchObject({ kind: 'Accepted' });
    const ref0 = out.kind === 'Accepted' ? out.ref : undefined;
    expect(ref0).toBeDefined();
    const ps = await p.powerState(ref(id), ctx);
    expect(ps).toMatchObject({ kind: 'Off', byRequest: false });
    expect(ps.kind === 'Off' && ps.evidence).toContain(
      `stop ${ref0} sent by this controller for n/1/PowerOff-1: ours`,
    );
    // Another process (a restarted controller) cannot know: someone's stop, left off.
    expect(await provider().powerState(ref(id), ctx)).toMatchObject({ byRequest: true });
  });

  it('a providerID of another region is Unavailable, never Gone, and Nova is not asked', async () => {
    const { fake, provider } = setup({ region: 'RegionOne' });
    const id = fake.addServer();
    const before = fake.requests.length;
    const ps = await provider().powerState(
      { node: 'node-a', providerID: `openstack://RegionTwo/${id}` },
      ctx,
    );
    expect(ps).toMatchObject({ kind: 'Unavailable', reason: expect.stringContaining('RegionTwo') });
    expect(fake.requests.slice(before).filter((r) => r.path.includes('/servers/'))).toEqual([]);
  });

  it("a guest that shut itself down (Nova's power-state sync, no user) is Off, not by request", async () => {
    const { fake, provider, now } = setup();
    const id = fake.addServer();
    fake.guestShutdown(id);
    const p = await provider().powerState(ref(id), ctx);
    expect(p).toMatchObject({
      kind: 'Off',
      byRequest: false,
      since: Math.floor(now() / 1000) * 1000,
    });
    expect(p.kind === 'Off' && p.evidence).toMatch(/power-state sync/);
  });

  it('a deleted server is Gone; an outage is Unavailable, never a power state', async () => {
    const { fake, provider } = setup();
    const id = fake.addServer();
    fake.failNext(3, { status: 503 });
    expect(await provider().powerState(ref(id), ctx)).toMatchObject({ kind: 'Unavailable' });
    fake.deleteServer(id);
    expect(await provider().powerState(ref(id), ctx)).toMatchObject({ kind: 'Gone' });
  });

  it("a bare 404 (another project's server, wrong credentials) is Unavailable, never Gone", async () => {
    const { fake, provider } = setup();
    const other = fake.addServer({ projectId: 'f0000000000000000000000000000099' });
    expect(await provider().powerState(ref(other), ctx)).toMatchObject({
      kind: 'Unavailable',
      reason: expect.stringContaining('not taken as deleted'),
    });
    expect(fake.server(other)?.status).toBe('ACTIVE');
  });
});
