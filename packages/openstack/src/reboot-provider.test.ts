// NovaRebootProvider keeps core's "an actionId is executed at most once" promise across
// restarts by recording the id in the server's metadata before rebooting.
import { ManualClock } from '@noderepair/core/testing';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { FakeOpenStack } from './testing/index.js';
import { createOpenStackClient } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { ACTION_ID_METADATA_KEY, NovaRebootProvider } from './reboot-provider.js';

function setup() {
  const fake = new FakeOpenStack({ transitionDelayMs: 0 });
  const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
  if (E.isLeft(cloud)) throw new Error(cloud.left);
  // A fresh client and provider per call: what a restarted controller has.
  const provider = () =>
    new NovaRebootProvider(
      createOpenStackClient(cloud.right, {
        transport: fake.transport,
        clock: new ManualClock(Date.now(), { sleepAdvances: true }),
        retry: { conflictAttempts: 1 },
      }).nova,
    );
  return { fake, provider };
}

const req = (
  serverId: string,
  actionId: string,
  action: 'SoftReboot' | 'HardReboot' | 'Replace' = 'HardReboot',
) => ({
  node: 'node-a',
  providerID: `openstack:///${serverId}`,
  action,
  actionId,
  replay: false,
});

describe('NovaRebootProvider', () => {
  it('reboots SOFT or HARD and records the action id on the server', async () => {
    const { fake, provider } = setup();
    const id = fake.addServer();
    expect((await provider().execute(req(id, 'r1/0/1', 'SoftReboot'))).result).toBe('Succeeded');
    expect(fake.rebootCount(id, 'SOFT')).toBe(1);
    expect(fake.server(id)?.metadata[ACTION_ID_METADATA_KEY]).toBe('r1/0/1');
    expect((await provider().execute(req(id, 'r1/1/1', 'HardReboot'))).result).toBe('Succeeded');
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
  });

  it('never reboots twice for the same action id, even from a restarted controller', async () => {
    const { fake, provider } = setup();
    const id = fake.addServer();
    await provider().execute(req(id, 'r1/1/1'));
    const replay = await provider().execute({ ...req(id, 'r1/1/1'), replay: true });
    expect(replay).toEqual({
      result: 'Succeeded',
      message: expect.stringContaining('already executed'),
    });
    expect(fake.rebootCount(id)).toBe(1);
    await provider().execute(req(id, 'r1/1/2'));
    expect(fake.rebootCount(id)).toBe(2);
  });

  it('reports failures as results: deleted server, locked server, bad or missing providerID, Replace', async () => {
    const { fake, provider } = setup();
    const gone = fake.addServer();
    fake.deleteServer(gone);
    expect(await provider().execute(req(gone, 'a'))).toEqual({
      result: 'Failed',
      message: expect.stringContaining('ServerNotFound'),
    });
    const locked = fake.addServer({ locked: true });
    expect(await provider().execute(req(locked, 'b'))).toEqual({
      result: 'Failed',
      message: expect.stringContaining('locked'),
    });
    expect(fake.rebootCount(locked)).toBe(0);
    expect(
      (await provider().execute({ ...req(locked, 'c'), providerID: 'aws:///i-1' })).message,
    ).toContain('openstack://');
    const { providerID: _p, ...noProvider } = req(locked, 'd');
    expect((await provider().execute(noProvider)).message).toContain('no providerID');
    expect((await provider().execute(req(fake.addServer(), 'e', 'Replace'))).message).toContain(
      'Cluster API',
    );
  });
});

describe('NovaRebootProvider: Rebuild (core ladder step with an image)', () => {
  it('rebuilds from the request image once per action id, and fails clearly without an image', async () => {
    const fake = new FakeOpenStack({ transitionDelayMs: 0, images: ['img-good'] });
    const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
    if (E.isLeft(cloud)) throw new Error(cloud.left);
    const provider = () =>
      new NovaRebootProvider(
        createOpenStackClient(cloud.right, {
          transport: fake.transport,
          clock: new ManualClock(Date.now(), { sleepAdvances: true }),
          retry: { conflictAttempts: 1 },
        }).nova,
      );
    const id = fake.addServer();
    const rebuild = { ...req(id, 'r1/2/1'), action: 'Rebuild' as const, image: 'img-good' };
    expect(await provider().execute(rebuild)).toEqual({
      result: 'Succeeded',
      message: `Nova accepted rebuild of server ${id} from image img-good`,
    });
    expect(await provider().execute({ ...rebuild, replay: true })).toEqual({
      result: 'Succeeded',
      message: `r1/2/1 was already executed on server ${id}; not rebuilding again`,
    });
    expect(fake.acceptedActions(id, 'rebuild')).toHaveLength(1);
    expect(fake.rebootCount(id)).toBe(0);
    const { image: _i, ...noImage } = rebuild;
    expect(await provider().execute({ ...noImage, actionId: 'r1/2/2' })).toEqual({
      result: 'Failed',
      message: 'Rebuild needs an image (the ladder step has none)',
    });
    expect(fake.acceptedActions(id, 'rebuild')).toHaveLength(1);
  });
});

describe('Nova server metadata', () => {
  it('sets and reads items; a locked server answers 409', async () => {
    const { fake } = setup();
    const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
    if (E.isLeft(cloud)) throw new Error(cloud.left);
    const nova = createOpenStackClient(cloud.right, { transport: fake.transport }).nova;
    const id = fake.addServer();
    expect(await nova.getMetadata(id)).toEqual({});
    await nova.setMetadataItem(id, 'k', 'v');
    expect(await nova.getMetadata(id)).toEqual({ k: 'v' });
    fake.setLocked(id, true);
    await expect(nova.setMetadataItem(id, 'k', 'w')).rejects.toMatchObject({ code: 'Conflict' });
    fake.deleteServer(id);
    await expect(nova.getMetadata(id)).rejects.toMatchObject({ code: 'ServerNotFound' });
  });

  it('hard-reboots a server in ERROR (Nova refuses its metadata there), and never again on a replay', async () => {
    const { fake, provider } = setup();
    const id = fake.addServer({ status: 'ERROR' });
    const first = await provider().execute(req(id, 'r1/HardReboot-1'));
    expect(first).toEqual({ result: 'Succeeded', message: expect.stringContaining('reboot HARD') });
    expect(fake.rebootCount(id, 'HARD')).toBe(1);
    expect(fake.server(id)?.metadata[ACTION_ID_METADATA_KEY]).toBeUndefined();

    // A replay finds a server in ERROR (a first call may have acted and the boot failed): no second reboot.
    const err = fake.addServer({ status: 'ERROR' });
    const replay = await provider().execute({ ...req(err, 'r1/HardReboot-1'), replay: true });
    expect(replay).toEqual({
      result: 'Failed',
      message: expect.stringContaining('not sent again'),
    });
    expect(fake.rebootCount(err)).toBe(0);
  });

  it('a SOFT reboot of a server in ERROR is a Conflict result, nothing is sent', async () => {
    const { fake, provider } = setup();
    const id = fake.addServer({ status: 'ERROR' });
    const r = await provider().execute(req(id, 'r1/SoftReboot-1', 'SoftReboot'));
    expect(r).toEqual({ result: 'Failed', message: expect.stringMatching(/^Conflict: /) });
    expect(fake.rebootCount(id)).toBe(0);
  });
});
