// The demo's world: a real etcd + kube-apiserver + kube-controller-manager (envtest) with a
// short node grace period, the FAKE Nova (FakeOpenStack) on a loopback HTTP port, one fake
// machine per Node (machines.ts) and noderepair's standalone auto-repair controller from
// @noderepair/core, rebooting through the OpenStack client.
import { mkdirSync, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, waitFor, type ControlPlane } from '@noderepair/envtest';
import {
  addAutoRepairController,
  createKubeClient,
  Manager,
  NodeResource,
  type RepairPolicy,
  type RuntimeLogger,
} from '@noderepair/core';
import {
  FakeOpenStack,
  NovaRebootProvider,
  openStackClientFromCloudsYaml,
  type OpenStackClient,
} from '@noderepair/capo-remediation';
import { HEARTBEAT_S, NODE_MONITOR_GRACE_S, demoPolicy } from './policy.js';
import { Machines, type MachineEvent } from './machines.js';
import { DemoRebootProvider } from './provider.js';
import { nodeName } from './names.js';

export interface WorldOptions {
  /** Directory for the component logs (control plane, controller). */
  logDir: string;
  zones: readonly string[];
  nodesPerZone: number;
  progress: (line: string) => void;
  onMachineEvent: (e: MachineEvent) => void;
  onReplaced: (oldNode: string, newNode: string) => void;
}

export interface World {
  readonly cp: ControlPlane;
  readonly core: CoreV1Api;
  readonly nova: FakeOpenStack;
  readonly machines: Machines;
  readonly policy: RepairPolicy;
  readonly provider: DemoRebootProvider;
  /** Server id -> node name, kept after a machine is replaced (Nova's log still names it). */
  readonly serverNodes: Map<string, string>;
  /** Stops the controller, the machines, the fake Nova and the control plane. */
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
  const stops: (() => Promise<void>)[] = [() => cp.stop()];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    opts.progress(`kube-apiserver ${cp.version} at ${cp.server}`);
    const nova = await FakeOpenStack.start({ transitionDelayMs: 1500 });
    stops.push(() => nova.close());
    opts.progress(`FAKE OpenStack (Keystone + Nova, a test double) at ${nova.baseUrl}`);
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const machines = new Machines(cp.kubeConfig, nova, opts.onMachineEvent);
    stops.push(() => machines.stop());
    const serverNodes = new Map<string, string>();

    opts.progress(
      `registering ${opts.zones.length * opts.nodesPerZone} nodes (fake kubelets) in ${opts.zones.join(', ')}`,
    );
    const names = opts.zones.flatMap((z) =>
      Array.from({ length: opts.nodesPerZone }, (_, i) => [z, nodeName(z, i + 1)] as const),
    );
    // A few at a time: each registration is several API calls and the machine may be small.
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
    const os: OpenStackClient = openStackClientFromCloudsYaml(
      nova.cloudsYaml(),
      'openstack',
      undefined,
    );
    stops.push(() => os.close());
    const provider = new DemoRebootProvider(new NovaRebootProvider(os.nova), async (old) => {
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
    });
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
    return { cp, core, nova, machines, policy, provider, serverNodes, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
