import { openStackClientFromCloudsYaml, ServerNotFound } from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';

export async function demo() {
  // A FAKE Keystone + Nova on a random loopback port (tests and demos only).
  const fake = await FakeOpenStack.start({ transitionDelayMs: 3_000 });
  const serverId = fake.addServer({ name: 'my-cluster-md-0-x7k2p' });

  // Exactly what CAPO's identityRef Secret holds: clouds.yaml (+ optional cacert PEM).
  const client = openStackClientFromCloudsYaml(fake.cloudsYaml(), 'openstack', undefined);
  try {
    await client.nova.reboot(serverId, 'SOFT');
    const during = await client.nova.getServer(serverId); // status REBOOT
    await client.nova.reboot(serverId, 'HARD'); // Nova lets HARD interrupt SOFT
    await new Promise((r) => setTimeout(r, 3_500));
    const after = await client.nova.getServer(serverId); // status ACTIVE

    fake.deleteServer(serverId);
    const gone = await client.nova.reboot(serverId, 'HARD').catch((e: unknown) => e);

    return {
      during: during.status,
      after: after.status,
      reboots: fake.rebootCount(serverId),
      goneIsServerNotFound: gone instanceof ServerNotFound,
    };
  } finally {
    await client.close();
    await fake.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await demo());
