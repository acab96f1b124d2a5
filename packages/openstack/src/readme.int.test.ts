// Runs the README's example (it listens on a loopback port, so it is not a unit test).
import { describe, expect, it } from 'vitest';
import { demo } from '../examples/reboot-with-fake-openstack.js';

describe('README example', () => {
  it('reboots a server on FakeOpenStack and escalates on 404', async () => {
    expect(await demo()).toEqual({
      during: 'REBOOT',
      after: 'ACTIVE',
      reboots: 2,
      goneIsServerNotFound: true,
    });
  });
});
