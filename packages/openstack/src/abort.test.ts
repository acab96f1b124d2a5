// The caller's AbortSignal (the controller's term, which a lost Lease aborts) reaches the
// HTTP request in flight: a Nova call that hangs ends at once as OpenStackError('Aborted'),
// not at the request timeout, and a backoff wait between retries ends too. Over real loopback
// sockets to the FAKE OpenStack (FakeOpenStack.start), whose replies are delayed like a stalled
// link (setLatency: the request takes effect, the reply does not come).
import { ManualClock } from '@noderepair/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStackClientFromCloudsYaml, type OpenStackClient } from './client.js';
import { OpenStackError } from './errors.js';
import { formatProviderID } from './provider-id.js';
import { NovaRebootProvider } from './reboot-provider.js';
import { FakeOpenStack } from './testing/index.js';

let fake: FakeOpenStack | undefined;
let client: OpenStackClient | undefined;
afterEach(async () => {
  fake?.setLatency(0);
  await client?.close();
  await fake?.close();
});

async function setup(): Promise<{ fake: FakeOpenStack; client: OpenStackClient; id: string }> {
  fake = await FakeOpenStack.start({ transitionDelayMs: 0 });
  client = openStackClientFromCloudsYaml(fake.cloudsYaml(), 'openstack', undefined, {
    retry: { timeoutMs: 60_000 },
  });
  const id = fake.addServer();
  await client.nova.getServer(id); // a token is cached; the next calls go straight to Nova
  return { fake, client, id };
}

/** How a call settles within `ms`: its error, 'resolved', or 'still in flight'. */
async function settle(p: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([
    p.then(
      () => 'resolved',
      (e: unknown) => e,
    ),
    new Promise((r) => setTimeout(() => r('still in flight'), ms)),
  ]);
}

describe('AbortSignal through the session', () => {
  it('aborts a Nova reboot whose reply hangs: Aborted, at once, not retried', async () => {
    const { fake, client, id } = await setup();
    fake.setLatency(30_000);
    const stop = new AbortController();
    const call = client.nova.reboot(id, 'HARD', { signal: stop.signal });
    await expect.poll(() => fake.rebootCount(id, 'HARD'), { timeout: 5000 }).toBe(1);
    stop.abort();
    const e = await settle(call, 1000);
    expect(e).toBeInstanceOf(OpenStackError);
    expect((e as OpenStackError).code).toBe('Aborted');
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
  });

  it('the Nova provider passes its signal on, and an abort is no Failed result', async () => {
    const { fake, client, id } = await setup();
    fake.setLatency(30_000);
    const stop = new AbortController();
    const call = new NovaRebootProvider(client.nova).execute(
      {
        node: 'n1',
        providerID: formatProviderID({ serverId: id, region: undefined }),
        action: 'SoftReboot',
        actionId: 'a-1',
        replay: false,
      },
      stop.signal,
    );
    await expect.poll(() => fake.requests.length, { timeout: 5000 }).toBeGreaterThan(2);
    stop.abort();
    const e = await settle(call, 1000);
    expect((e as OpenStackError).code).toBe('Aborted');
  });

  it('ends a backoff wait between retries of a 503', async () => {
    const { fake, client, id } = await setup();
    fake.failNext(10, { status: 503, retryAfterSeconds: 30, service: 'compute' });
    const stop = new AbortController();
    const call = client.nova.getServer(id, { signal: stop.signal });
    await expect
      .poll(() => fake.requests.filter((r) => r.injected).length, { timeout: 5000 })
      .toBe(1);
    stop.abort();
    const e = await settle(call, 1000);
    expect((e as OpenStackError).code).toBe('Aborted');
  });

  it("ends a backoff wait on the session's clock and leaves no timer behind", async () => {
    // In memory (no sockets): nothing for afterEach to close.
    [fake, client] = [undefined, undefined];
    const mem = new FakeOpenStack({ transitionDelayMs: 0 });
    // Time moves only when the test says: the wait can only end through the abort.
    const clock = new ManualClock(Date.now());
    const os = openStackClientFromCloudsYaml(mem.cloudsYaml(), 'openstack', undefined, {
      transport: mem.transport,
      clock,
    });
    const id = mem.addServer();
    await os.nova.getServer(id); // a token is cached; the next calls go straight to Nova
    const sent = () => mem.requests.filter((r) => r.service === 'compute').length;
    const before = sent();
    mem.failNext(1, { status: 503, service: 'compute' });
    const stop = new AbortController();
    const call = os.nova.getServer(id, { signal: stop.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    expect(clock.slept).toEqual([500]); // the first backoff of the default policy
    stop.abort();
    const e = await call;
    expect((e as OpenStackError).code).toBe('Aborted');
    expect(clock.pending).toBe(0);
    clock.advance(60_000);
    expect(sent()).toBe(before + 1); // the 503'd attempt only: nothing sent after the abort
  });
});
