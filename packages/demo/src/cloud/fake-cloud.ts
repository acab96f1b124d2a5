// The FAKE Nova (FakeOpenStack from @noderepair/openstack/testing, a test double of Keystone +
// Nova on a loopback HTTP port), reached by noderepair through the real OpenStack client.
import { NovaRebootProvider, openStackClientFromCloudsYaml } from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import type { AcceptedReboot, Cloud } from './cloud.js';

export async function startFakeCloud(): Promise<Cloud> {
  const nova = await FakeOpenStack.start({ transitionDelayMs: 1500 });
  const os = openStackClientFromCloudsYaml(nova.cloudsYaml(), 'openstack', undefined);
  const ids = new Set<string>();
  const nodes: string[] = [];
  const accepted = (): AcceptedReboot[] =>
    nova.requests.flatMap((e): AcceptedReboot[] =>
      e.action === 'reboot' && e.status === 202 && e.serverId
        ? [{ at: e.at, serverId: e.serverId, type: e.rebootType === 'HARD' ? 'HARD' : 'SOFT' }]
        : [],
    );
  return {
    kind: 'fake',
    description: `FAKE OpenStack (Keystone + Nova, a test double) at ${nova.baseUrl}`,
    provider: new NovaRebootProvider(os.nova),
    // The fake's own 1.5 s reboot transition is the VM's downtime.
    bootMs: 0,
    createServer: async (name) => {
      const id = nova.addServer({ name });
      ids.add(id);
      nodes.push(name);
      return id;
    },
    deleteServer: async (id) => {
      ids.delete(id);
      nova.deleteServer(id);
    },
    owns: (id) => ids.has(id),
    observe(id) {
      const s = nova.server(id); // reading settles a transition whose time has come
      if (!s) return undefined;
      const rebooting = s.status === 'REBOOT' || s.status === 'HARD_REBOOT';
      return { rebooting, boots: s.boots, status: s.status };
    },
    acceptedReboots: accepted,
    describeUse: () =>
      `FAKE Nova (FakeOpenStack) for ${nodes.length} node(s): ${accepted().length} reboot(s) accepted`,
    async close() {
      await os.close();
      await nova.close();
    },
  };
}
