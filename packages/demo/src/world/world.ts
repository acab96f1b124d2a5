// The demo's world: a real etcd + kube-apiserver + kube-controller-manager (envtest) with a
// short node grace period; ONE cloud holding every node's server: the FAKE Nova (FakeOpenStack)
// on a loopback HTTP port, or with --openstack real the REAL OpenStack test bed (src/cloud);
// one fake machine per Node (machines.ts); noderepair itself as a user runs it, the compiled
// `noderepair run --provider openstack --cloud NAME` (controller.ts); and the demo's stand-in
// for the node group's owner, which brings back capacity noderepair's Replace deleted
// (node-group.ts).
//
// One cloud, one controller: `noderepair run` talks to one cloud, and two controllers split by
// a label selector would each see part of the fleet, so their storm guard would count a
// different fleet and zones (3 of 3 zone-a nodes "unhealthy") than the cluster has.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, waitFor, type ControlPlane } from '@noderepair/envtest';
import type { RepairPolicy } from '@noderepair/core';
import type { Cloud } from '../cloud/cloud.js';
import { startFakeCloud } from '../cloud/fake-cloud.js';
import { startRealCloud } from '../cloud/real-cloud.js';
import type { OpenStackMode } from '../args.js';
import { startController, type StatusOutput } from './controller.js';
import { HEARTBEAT_S, NODE_MONITOR_GRACE_S, demoPolicy, demoPolicyInput } from './policy.js';
import { Machines, type Machine, type MachineEvent } from './machines.js';
import { NodeGroupStandIn } from './node-group.js';
import { nodeName } from './names.js';

export interface WorldOptions {
  /** Directory for the component logs (control plane, controller). */
  logDir: string;
  zones: readonly string[];
  nodesPerZone: number;
  progress: (line: string) => void;
  onMachineEvent: (e: MachineEvent) => void;
  /** The node group stand-in found `old`'s server gone and `fresh` joined in its zone. */
  onReplaced: (old: Machine, fresh: Machine) => void;
  /** Where every server lives: the fake Nova, or the real test bed. */
  openstack: OpenStackMode;
}

export interface World {
  readonly cp: ControlPlane;
  readonly core: CoreV1Api;
  /** The one cloud (a list for the summary's and observer's sake). */
  readonly clouds: readonly Cloud[];
  readonly machines: Machines;
  readonly policy: RepairPolicy;
  /** Server id -> node name, kept after a machine is replaced (Nova's log still names it). */
  readonly serverNodes: Map<string, string>;
  /** Runs `noderepair status` with the controller's kubeconfig and policy. */
  noderepairStatus(): Promise<StatusOutput>;
  /** Why noderepair is not running any more, once its process exited while the demo ran. */
  controllerFailure(): string | undefined;
  /** Stops the controller, the machines, the cloud (deleting the real servers) and the control plane. */
  stop(): Promise<void>;
}

export async function startWorld(opts: WorldOptions): Promise<World> {
  mkdirSync(opts.logDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    // The real test bed first: when it is not there the demo says so before anything starts.
    const real =
      opts.openstack === 'real' ? await startRealCloud({ progress: opts.progress }) : undefined;
    if (real) stops.push(() => real.close());
    opts.progress('starting etcd, kube-apiserver and kube-controller-manager (envtest)');
    const cp = await startControlPlane({
      dir: join(opts.logDir, 'control-plane'),
      keepDir: true,
      controllerManager: {
        nodeMonitorGracePeriodSeconds: NODE_MONITOR_GRACE_S,
        nodeMonitorPeriodSeconds: 1,
      },
      progress: opts.progress,
      startTimeoutMs: 180_000,
    });
    stops.push(() => cp.stop());
    opts.progress(`kube-apiserver ${cp.version} at ${cp.server}`);
    const cloud = real ?? (await startFakeCloud());
    if (!real) stops.push(() => cloud.close());
    opts.progress(cloud.description);
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const machines = new Machines(cp.kubeConfig, () => cloud, opts.onMachineEvent);
    stops.push(() => machines.stop());
    const serverNodes = new Map<string, string>();

    opts.progress(
      `registering ${opts.zones.length * opts.nodesPerZone} nodes (fake kubelets) in ${opts.zones.join(', ')}`,
    );
    const names = opts.zones.flatMap((z) =>
      Array.from({ length: opts.nodesPerZone }, (_, i) => [z, nodeName(z, i + 1)] as const),
    );
    // A few at a time: each registration is several API calls and the machine may be small
    // (and the real test bed creates its servers one after another, see cloud/serial.ts).
    for (let i = 0; i < names.length; i += 6) {
      await Promise.all(
        names.slice(i, i + 6).map(async ([zone, name]) => {
          const m = await machines.create(name, zone);
          serverNodes.set(m.serverId, name);
        }),
      );
    }
    await waitFor(
      'every node Ready=True',
      async () => {
        const list = await core.listNode();
        const ready = list.items.filter((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === names.length ? true : undefined;
      },
      120_000,
      500,
    );
    machines.start();
    const owner = new NodeGroupStandIn(
      machines,
      (old, fresh) => {
        serverNodes.set(fresh.serverId, fresh.node);
        opts.onReplaced(old, fresh);
      },
      opts.progress,
    );
    owner.start();
    stops.push(() => owner.stop());

    const policy = demoPolicy();
    let failure: string | undefined;
    const controller = startController({
      logDir: opts.logDir,
      kubeconfigPath: cp.kubeconfigPath,
      cloudsYaml: cloud.cloudsYaml,
      cloud: cloud.cloudName,
      policy: demoPolicyInput,
      onExit: (message) => {
        failure = message;
        opts.progress(message);
      },
    });
    stops.push(() => controller.stop());
    opts.progress(`running: ${controller.command}`);
    opts.progress(
      `(heartbeats every ${HEARTBEAT_S}s, node grace ${NODE_MONITOR_GRACE_S}s; controller log ${join(opts.logDir, 'noderepair-controller.log')})`,
    );
    return {
      cp,
      core,
      clouds: [cloud],
      machines,
      policy,
      serverNodes,
      noderepairStatus: () => controller.status(),
      controllerFailure: () => failure,
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
