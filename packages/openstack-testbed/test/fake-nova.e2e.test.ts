// The same Nova contract against FakeOpenStack (a FAKE Keystone + Nova listening on loopback),
// so the fake and the real services are checked by identical test code, side by side.
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { describeNovaContract } from './contract/nova-contract.js';

describeNovaContract('FakeOpenStack', async () => {
  // The real fake-driver Nova takes about a second per reboot on this machine, and a GET
  // right after the 202 still shows the API's task state (the cast is not picked up yet).
  const fake = await FakeOpenStack.start({ transitionDelayMs: 500, computePickupDelayMs: 200 });
  const password = fake.cloudsYaml({ cloudName: 'fake' });
  const appcred = fake.cloudsYaml({ cloudName: 'fake-appcred', auth: 'application_credential' });
  return {
    cloudsYaml: `${password}${appcred.replace(/^clouds:\n/, '')}`,
    cloudName: 'fake',
    appCredCloudName: 'fake-appcred',
    expectedComputeUrl: fake.computeUrl(fake.regions[0] ?? 'RegionOne', 'public'),
    createServer: async (name) => fake.addServer({ name }),
    pauseCompute: async () => fake.pauseCompute(),
    resumeCompute: async () => fake.resumeCompute(),
    forceError: async (uuid) => fake.resetState(uuid, 'error'),
    countReboots: async (uuid) => fake.rebootCount(uuid),
    close: () => fake.close(),
  };
});
