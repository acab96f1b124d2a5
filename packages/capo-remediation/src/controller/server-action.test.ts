import { afterEach, describe, expect, it } from 'vitest';
import {
  NovaMachineProvider,
  openStackClientFromCloudsYaml,
  type OpenStackClient,
} from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { executeStep, fenceOf } from './server-action.js';

const signal = new AbortController().signal;

describe('executeStep (against the in-memory FakeOpenStack)', () => {
  let client: OpenStackClient | undefined;
  afterEach(async () => {
    await client?.close();
  });

  function setup() {
    const fake = new FakeOpenStack({ transitionDelayMs: 10, images: ['img-good'] });
    const serverId = fake.addServer({ name: 'w' });
    client = openStackClientFromCloudsYaml(fake.cloudsYaml(), 'openstack', undefined, {
      transport: fake.transport,
      retry: { maxAttempts: 1 },
    });
    const nova = client.nova;
    // A fresh provider per call: what a restarted controller has.
    return { fake, serverId, provider: () => new NovaMachineProvider(nova) };
  }

  it('Rebuild runs once per action id, also when replayed (answered from os-instance-actions)', async () => {
    const { fake, serverId, provider } = setup();
    const req = {
      nodeName: 'n',
      serverId,
      step: { type: 'Rebuild' as const, timeoutSeconds: 600, retries: 0, imageRef: 'img-good' },
      actionId: 'uid/step-2/attempt-1',
      issuedAt: Date.now(),
      replay: false,
    };
    expect(await executeStep(provider(), req, signal)).toMatchObject({ kind: 'Accepted' });
    expect(await executeStep(provider(), { ...req, replay: true }, signal)).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('not sent again'),
    });
    expect(fake.acceptedActions(serverId, 'rebuild')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(
      await executeStep(
        provider(),
        { ...req, actionId: 'uid/step-2/attempt-2', issuedAt: Date.now() + 10_000, replay: true },
        signal,
      ),
    ).toMatchObject({ kind: 'Accepted' });
    expect(fake.acceptedActions(serverId, 'rebuild')).toHaveLength(2);
  });

  it('a deleted server or a rejected image is Rejected, not a throw; an outage is Unavailable', async () => {
    const { fake, serverId, provider } = setup();
    const base = { nodeName: 'n', serverId, issuedAt: Date.now(), replay: false };
    const bad = await executeStep(
      provider(),
      {
        ...base,
        step: { type: 'Rebuild', timeoutSeconds: 600, retries: 0, imageRef: 'img-unknown' },
        actionId: 'x/1',
      },
      signal,
    );
    expect(bad.kind).toBe('Rejected');
    fake.failNext(1, { status: 503, service: 'compute' });
    const step = { type: 'HardReboot' as const, timeoutSeconds: 600, retries: 0 };
    expect(
      await executeStep(provider(), { ...base, step, actionId: 'x/2', replay: true }, signal),
    ).toMatchObject({ kind: 'Unavailable', maybeSent: false });
    fake.deleteServer(serverId);
    expect(await executeStep(provider(), { ...base, step, actionId: 'x/3' }, signal)).toMatchObject(
      { kind: 'Rejected', message: expect.stringContaining('ServerNotFound') },
    );
    expect(await fenceOf(provider(), { ...base, step, actionId: 'x/3' }, signal)).toMatchObject({
      kind: 'Fenced',
      how: 'Deleted',
    });
  });
});
