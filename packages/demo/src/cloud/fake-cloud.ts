// The FAKE Nova (FakeOpenStack from @noderepair/openstack/testing, a test double of Keystone +
// Nova on a loopback HTTP port), reached by `noderepair run` over HTTP with its clouds.yaml.
import { FakeOpenStack } from '@noderepair/openstack/testing';
import type { AcceptedReboot, Cloud } from './cloud.js';

/** The cloud's name in the clouds.yaml the controller gets (application credential, as a Secret would hold). */
export const FAKE_CLOUD = 'demo-fake';

export async function startFakeCloud(): Promise<Cloud> {
  const nova = await FakeOpenStack.start({ transitionDelayMs: 1500 });
  const ids = new Set<string>();
  const nodes: string[] = [];
  const accepted = (): AcceptedReboot[] =>
    nova.requests.flatMap((e): AcceptedReboot[] =>
      e.action === 'reboot' && e.status === 202 && e.serverId
        ? [{ at: e.at, serverId: e.serverId, type: e.rebootType === 'HARD' ? 'HARD' : 'SOFT' }]
        : [],
    );
  const deleted = () =>
    nova.requests.filter(
      (e) => e.method === 'DELETE' && e.status === 204 && /\/servers\/[^/]+$/.test(e.path),
    ).length;
  return {
    kind: 'fake',
    description: `FAKE OpenStack (Keystone + Nova, a test double) at ${nova.baseUrl}`,
    cloudsYaml: nova.cloudsYaml({ cloudName: FAKE_CLOUD, auth: 'application_credential' }),
    cloudName: FAKE_CLOUD,
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
    gone: async (id) => ids.has(id) && nova.server(id) === undefined,
    observe(id) {
      const s = nova.server(id); // reading settles a transition whose time has come
      if (!s) return undefined;
      const rebooting = s.status === 'REBOOT' || s.status === 'HARD_REBOOT';
      return { rebooting, boots: s.boots, status: s.status };
    },
    acceptedReboots: accepted,
    describeUse: () =>
      `FAKE Nova (FakeOpenStack) for ${nodes.length} node(s): ${accepted().length} reboot(s) accepted, ${deleted()} server(s) deleted`,
    async close() {
      await nova.close();
    },
  };
}
