#!/usr/bin/env node
// noderepair-envtest: `assets` builds/locates the binaries and prints their directory;
// `smoke` proves the whole chain (etcd, kube-apiserver, node lifecycle controller, fake kubelet).
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import './client-node-guard.js';
import { CoreV1Api } from '@kubernetes/client-node';
import { ensureAssets, ensureKubelet } from './assets.js';
import { startControlPlane } from './control-plane.js';
import { startFakeKubelet } from './fake-kubelet.js';
import { waitFor } from './process/wait.js';

const usage = `usage: noderepair-envtest <command>
  assets   build (first run) or locate etcd, kube-apiserver, kube-controller-manager; print their directory
  kubelet  build (first run) or locate the kubelet for tests that run a real node; print its path
  smoke    start a control plane, stop a fake kubelet's heartbeats, wait for Ready=Unknown`;

async function assets(): Promise<void> {
  const a = await ensureAssets({
    needControllerManager: true,
    progress: (l) => process.stderr.write(`${l}\n`),
  });
  process.stderr.write(`envtest assets (${a.source}):\n`);
  process.stdout.write(`${a.dir}\n`);
}

async function kubelet(): Promise<void> {
  process.stdout.write(
    `${await ensureKubelet({ progress: (l) => process.stderr.write(`${l}\n`) })}\n`,
  );
}

async function smoke(): Promise<void> {
  const cp = await startControlPlane({
    controllerManager: { nodeMonitorGracePeriodSeconds: 6, nodeMonitorPeriodSeconds: 1 },
    progress: (l) => process.stderr.write(`${l}\n`),
  });
  try {
    console.log(`kube-apiserver ${cp.version} ready at ${cp.server}`);
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const kubelet = await startFakeKubelet(cp.kubeConfig, {
      name: 'smoke-node',
      heartbeatSeconds: 1,
    });
    const readyStatus = async () =>
      (await core.readNode({ name: 'smoke-node' })).status?.conditions?.find(
        (c) => c.type === 'Ready',
      )?.status;
    await waitFor(
      'node Ready=True',
      async () => ((await readyStatus()) === 'True' ? true : undefined),
      30_000,
    );
    console.log('node smoke-node Ready=True (fake kubelet heartbeating)');
    kubelet.stopHeartbeats();
    const t0 = Date.now();
    await waitFor(
      'node Ready=Unknown',
      async () => ((await readyStatus()) === 'Unknown' ? true : undefined),
      120_000,
    );
    console.log(`node went Unknown after ${Date.now() - t0} ms`);
    const node = await core.readNode({ name: 'smoke-node' });
    console.log(
      `taints: ${(node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).join(', ') || '(none yet)'}`,
    );
    await kubelet.stop();
  } catch (err) {
    console.error(cp.logs());
    throw err;
  } finally {
    await cp.stop();
  }
}

const cmd = process.argv[2];
const commands: Record<string, () => Promise<void>> = { assets, kubelet, smoke };
const run = cmd ? commands[cmd] : undefined;
if (!run) {
  console.error(usage);
  process.exit(2);
}
run().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`noderepair-envtest ${cmd}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
