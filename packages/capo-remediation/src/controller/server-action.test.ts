import { afterEach, describe, expect, it } from 'vitest';
import { openStackClientFromCloudsYaml, type OpenStackClient } from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { executeStep } from './server-action.js';

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
    return { fake, serverId, nova: client.nova };
  }

  it('Rebuild runs once per action id, also when replayed', async () => {
    const { fake, serverId, nova } = setup();
    const req = {
      nodeName: 'n',
      serverId,
      step: { type: 'Rebuild' as const, timeoutSeconds: 600, retries: 0, imageRef: 'img-good' },
      actionId: 'uid/step-2/attempt-1',
      replay: false,
    };
    expect(await executeStep(nova, req)).toMatchObject({
      result: 'Succeeded',
      message: expect.stringContaining('accepted rebuild'),
    });
    expect(await executeStep(nova, { ...req, replay: true })).toMatchObject({
      result: 'Succeeded',
      message: expect.stringContaining('already executed'),
    });
    expect(fake.acceptedActions(serverId, 'rebuild')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await executeStep(nova, { ...req, actionId: 'uid/step-2/attempt-2' })).toMatchObject({
      result: 'Succeeded',
    });
    expect(fake.acceptedActions(serverId, 'rebuild')).toHaveLength(2);
  });

  it('SoftReboot and HardReboot go through NovaRebootProvider, idempotent on the action id', async () => {
    const { fake, serverId, nova } = setup();
    const soft = {
      nodeName: 'n',
      serverId,
      step: { type: 'SoftReboot' as const, timeoutSeconds: 600, retries: 0 },
      actionId: 'a/1',
      replay: false,
    };
    await executeStep(nova, soft);
    await executeStep(nova, { ...soft, replay: true });
    expect(fake.rebootCount(serverId, 'SOFT')).toBe(1);
    // Like real Nova, the fake refuses a metadata update (409) while the reboot task runs.
    await new Promise((r) => setTimeout(r, 50));
    await executeStep(nova, {
      ...soft,
      step: { ...soft.step, type: 'HardReboot' },
      actionId: 'a/2',
    });
    expect(fake.rebootCount(serverId, 'HARD')).toBe(1);
  });

  it('a deleted server or a rejected image is a Failed result, not a throw', async () => {
    const { fake, serverId, nova } = setup();
    const bad = await executeStep(nova, {
      nodeName: 'n',
      serverId,
      step: { type: 'Rebuild', timeoutSeconds: 600, retries: 0, imageRef: 'img-unknown' },
      actionId: 'x/1',
      replay: false,
    });
    expect(bad.result).toBe('Failed');
    fake.deleteServer(serverId);
    const gone = await executeStep(nova, {
      nodeName: 'n',
      serverId,
      step: { type: 'HardReboot', timeoutSeconds: 600, retries: 0 },
      actionId: 'x/2',
      replay: false,
    });
    expect(gone).toMatchObject({
      result: 'Failed',
      message: expect.stringContaining('ServerNotFound'),
    });
  });
});
