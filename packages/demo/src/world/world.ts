// The demo's world: a real etcd + kube-apiserver + kube-controller-manager (envtest) with a
// short node grace period, the FAKE Nova (FakeOpenStack) on a loopback HTTP port and, with
// --openstack real, the REAL OpenStack test bed for the nodes the scenarios play with (src/
// cloud), one fake machine per Node (machines.ts) and noderepair's standalone auto-repair
// controller from @noderepair/core, rebooting through the OpenStack client.
import { mkdirSync, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, waitFor, type ControlPlane } from '@noderepair/envtest';
import {
  addAutoRepairController,
  createKubeClient,
  machineProviderFromRebootProvider,
  Manager,
  NodeResource,
  type RebootProvider,
  type RepairPolicy,
  type RuntimeLogger,
} from '@noderepair/core';
import type { Cloud } from '../cloud/cloud.js';
import { startFakeCloud } from '../cloud/fake-cloud.js';
import { startRealCloud } from '../cloud/real-cloud.js';
import type { OpenStackMode } from '../args.js';
import { HEARTBEAT_S, NODE_MONITOR_GRACE_S, demoPolicy } from './policy.js';
import { Machines, type MachineEvent } from './machines.js';
import { FakeMachineSetDemoProvider } from './provider.js';
import { nodeName } from './names.js';

export interface WorldOptions {
  /** Directory for the component logs (control plane, controller). */
  logDir: string;
  zones: readonly string[];
  nodesPerZone: number;
  progress: (line: string) => void;
  onMachineEvent: (e: MachineEvent) => void;
  onReplaced: (oldNode: string, newNode: string) => void;
  /** Where reboots go: the fake Nova only, or the real test bed for `realNodes`. */
  openstack: OpenStackMode;
  /** With --openstack real: the nodes (and their replacements) on real servers. */
  realNodes: ReadonlySet<string>;
}

export interface World {
  readonly cp: ControlPlane;
  readonly core: CoreV1Api;
  /** The fake Nova, then (with --openstack real) the real test bed. */
  readonly clouds: readonly Cloud[];
  readonly machines: Machines;
  readonly policy: RepairPolicy;
  readonly provider: FakeMachineSetDemoProvider;
  /** Server id -> node name, kept after a machine is replaced (Nova's log still names it). */
  readonly serverNodes: Map<string, string>;
  /** Stops the controller, the machines, the clouds (deleting the real servers) and the control plane. */
  stop(): Promise<void>;
}

/** A JSON-lines logger into a file: the controller's logs must not tear the live view. */
function fileLogger(stream: WriteStream, bindings: Record<string, unknown> = {}): RuntimeLogger {
  const write = (level: string) => (obj: object, msg?: string) =>
    stream.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, ...bindings, ...obj, msg })}\n`,
    );
  return {
    debug: () => {},
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (b) => fileLogger(stream, { ...bindings, ...b }),
  };
}

export async function startWorld(opts: WorldOptions): Promise<World> {
  mkdirSync(opts.logDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const clouds: Cloud[] = [];
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
    const fake = await startFakeCloud();
    stops.push(() => fake.close());
    clouds.push(fake);
    opts.progress(fake.description);
    if (real) {
      clouds.push(real);
      opts.progress(real.description);
      opts.progress(
        `on real Nova servers: ${[...opts.realNodes].join(', ')}; the other nodes on the fake Nova`,
      );
    }
    // A replacement (zone-b-07-r1) lives where the node it replaces lived.
    const cloudFor = (node: string): Cloud =>
      real && opts.realNodes.has(node.replace(/-r\d+$/, '')) ? real : fake;
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const machines = new Machines(cp.kubeConfig, cloudFor, opts.onMachineEvent);
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

    const kube = createKubeClient(cp.kubeConfig);
    // Each reboot goes to the Nova of the cloud that owns the server (the providerID's last
    // segment is the server id: openstack:///<uuid>).
    const nova: RebootProvider = {
      name: real ? `${real.provider.name}(real test bed, fake)` : fake.provider.name,
      execute: (req, signal) => {
        const id = req.providerID?.split('/').pop() ?? '';
        return (clouds.find((c) => c.owns(id)) ?? fake).provider.execute(req, signal);
      },
    };
    // NovaRebootProvider is a legacy RebootProvider: through the LEGACY adapter (it cannot
    // report power state, so only a new bootID after a HardReboot fences).
    const provider = new FakeMachineSetDemoProvider(
      machineProviderFromRebootProvider(nova),
      async (old) => {
        const m = machines.get(old);
        // zone-b-07 -> zone-b-07-r1 -> zone-b-07-r2: a MachineSet's new Machine gets a new name.
        const r = /^(.*)-r(\d+)$/.exec(old);
        const fresh = r ? `${r[1]}-r${Number(r[2]) + 1}` : `${old}-r1`;
        await machines.remove(old);
        await kube.delete(NodeResource, old).catch(() => undefined);
        const n = await machines.create(fresh, m.zone);
        serverNodes.set(n.serverId, fresh);
        opts.onReplaced(old, fresh);
        return fresh;
      },
    );
    stops.push(() => provider.settle());

    const log = createWriteStream(join(opts.logDir, 'noderepair-controller.log'));
    stops.push(() => new Promise<void>((r) => log.end(() => r())));
    const manager = new Manager({
      name: 'noderepair-demo',
      probes: false,
      handleSignals: false,
      logger: fileLogger(log),
    });
    const policy = demoPolicy();
    addAutoRepairController(manager, {
      client: kube,
      policy,
      provider,
      instance: 'demo',
      maxResyncIntervalMs: 60_000,
    });
    const stopper = new AbortController();
    const running = manager.start(stopper.signal).catch((e: unknown) => {
      opts.progress(`noderepair controller stopped with an error: ${(e as Error).message}`);
    });
    stops.push(async () => {
      stopper.abort();
      await running;
    });
    opts.progress(
      `noderepair auto-repair controller running (provider ${provider.name}; heartbeats every ${HEARTBEAT_S}s, node grace ${NODE_MONITOR_GRACE_S}s)`,
    );
    return { cp, core, clouds, machines, policy, provider, serverNodes, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
