// The consumer's entry point: a real etcd + kube-apiserver + kube-controller-manager from
// the packed @noderepair/envtest, a FAKE Keystone + Nova (@noderepair/openstack/testing), one
// fake-kubelet Node on that fake server, and the controller of ./controller.ts talking to the
// cluster through core's kubernetes-fluent-client adapter. The kubelet hangs; the node
// lifecycle controller marks the Node Unknown; the controller reboots the server; the kubelet
// comes back. Prints one JSON summary line on stdout; exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { startControlPlane, startFakeKubelet, waitFor } from '@noderepair/envtest';
import { openStackClientFromCloudsYaml } from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { createKubeClient, nodeClient } from '@noderepair/core/kube';
import { createKfcKubeClient } from '@noderepair/core/kfc';
import { generate, parseConfig } from '@noderepair/overlayfs-gen';
import { CauseAnnotation, createController, RebootedBootAnnotation } from './controller.js';

const NodeName = 'packtest-worker';
const Pool = { 'packtest.noderepair.dev/pool': 'workers' };

/** The overlay config given on the command line, through the public generator. */
function overlayFiles(path: string): string[] {
  const config = parseConfig(readFileSync(path, 'utf8'));
  if (config._tag === 'Left') throw new Error(`${path}: ${JSON.stringify(config.left)}`);
  return generate(config.right).files.map((f) => f.path);
}

async function main(): Promise<void> {
  const overlayConfig = process.argv[2];
  if (!overlayConfig) throw new Error('usage: node dist/main.js <overlay-config.yaml>');
  const overlay = overlayFiles(overlayConfig);

  const cp = await startControlPlane({ controllerManager: { nodeMonitorGracePeriodSeconds: 6 } });
  const fake = await FakeOpenStack.start({ transitionDelayMs: 500 });
  const openstack = openStackClientFromCloudsYaml(fake.cloudsYaml(), 'openstack', undefined);
  const kfc = createKfcKubeClient(cp.kubeConfig);
  const nodes = nodeClient(createKubeClient(cp.kubeConfig));
  const stop = new AbortController();
  try {
    const serverId = fake.addServer({ name: NodeName });
    const kubelet = await startFakeKubelet(cp.kubeConfig, {
      name: NodeName,
      labels: Pool,
      providerID: `openstack:///${serverId}`,
      heartbeatSeconds: 1,
    });
    const firstBoot = kubelet.currentBootID;
    const manager = createController({
      client: kfc,
      openstack,
      labelSelector: 'packtest.noderepair.dev/pool=workers',
    });
    const running = manager.start(stop.signal);

    // Every cause the controller wrote, in order, without repeats.
    const causes: string[] = [];
    const causeIs = (want: string) => async () => {
      const n = await nodes.get(NodeName);
      const cause = n.metadata?.annotations?.[CauseAnnotation];
      if (cause !== undefined && cause !== causes[causes.length - 1]) causes.push(cause);
      return cause === want ? n : undefined;
    };

    await waitFor('the controller to mark the node Healthy', causeIs('Healthy'), 120_000);
    kubelet.stopHeartbeats(); // the kubelet hangs
    const unreachable = await waitFor(
      'the controller to mark the node KubeletUnreachable',
      causeIs('KubeletUnreachable'),
      120_000,
    );
    await waitFor(
      'a HARD reboot of the server',
      async () => (fake.rebootCount(serverId, 'HARD') > 0 ? true : undefined),
      60_000,
    );
    await kubelet.reboot(1_000); // the machine comes back with a new boot ID
    const healthy = await waitFor('the node to be Healthy again', causeIs('Healthy'), 120_000);
    // Give a wrong second reboot time to show up before counting.
    await new Promise((r) => setTimeout(r, 2_000));

    const server = await openstack.nova.getServer(serverId);
    const summary = {
      // The test runs this program on each supported Node major; it checks which one ran.
      node: process.version,
      kubernetesVersion: cp.version,
      causes,
      hardReboots: fake.rebootCount(serverId, 'HARD'),
      softReboots: fake.rebootCount(serverId, 'SOFT'),
      rebootedTheFirstBoot:
        unreachable.metadata?.annotations?.[RebootedBootAnnotation] === firstBoot,
      bootIdChanged: healthy.status?.nodeInfo?.bootID !== firstBoot,
      serverStatus: server.status,
      overlayFiles: overlay,
    };
    stop.abort();
    await running;
    await kubelet.stop();
    // The manager logs JSON lines to stdout too: the summary is the line with a `summary` key.
    process.stdout.write(`${JSON.stringify({ summary })}\n`);
  } finally {
    stop.abort();
    kfc.close();
    await openstack.close();
    await fake.close();
    await cp.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`packtest: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
