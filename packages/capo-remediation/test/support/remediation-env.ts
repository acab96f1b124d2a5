// A world for the controller's integration tests, built the way Cluster API builds it: a
// v1beta2 (or v1beta1) Machine with nodeRef and an infrastructureRef to a CAPO
// OpenStackMachine (real CRDs), its identityRef Secret holding clouds.yaml for a FAKE
// Keystone + Nova (FakeOpenStack), a Node driven by a fake kubelet whose providerID names
// the fake's server, and an OpenStackRemediationTemplate from which the OpenStackRemediation
// is cloned exactly as the MachineHealthCheck does (remediationFromTemplate).
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  createKubeClient,
  customResource,
  NodeResource,
  type KubeClient,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { Manager, type RuntimeLogger } from '@noderepair/core/runtime';
import { installCRDs, startFakeKubelet, type FakeKubelet } from '@noderepair/envtest';
import { GROUP, VERSION, type RemediationStatus } from '../../src/api/index.js';
import {
  addRemediationController,
  OpenStackRemediationResource,
  type WorkloadClusterAccess,
} from '../../src/controller/index.js';
import {
  createOpenStackClient,
  type CloudConfig,
  type RetryPolicy,
} from '@noderepair/openstack';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { remediationFromTemplate } from '../../src/testing/index.js';
import { capiCrdPaths } from './capi-crds.js';
import { capoCrdPaths } from './capo-crds.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function installAllCRDs(kc: KubeConfig): Promise<void> {
  const capi = await capiCrdPaths(['machines']);
  const capo = await capoCrdPaths(['openstackmachines']);
  const ours = ['openstackremediationtemplates', 'openstackremediations'].map((p) =>
    join(pkg, 'config', 'crd', `${GROUP}_${p}.yaml`),
  );
  await installCRDs(kc, [...capi, ...capo, ...ours]);
}

export const MachineV1beta2 = customResource({
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'Machine',
  plural: 'machines',
  namespaced: true,
});
const OpenStackMachineV1beta1 = customResource({
  group: 'infrastructure.cluster.x-k8s.io',
  version: 'v1beta1',
  kind: 'OpenStackMachine',
  plural: 'openstackmachines',
  namespaced: true,
});
const TemplateResource = customResource({
  group: GROUP,
  version: VERSION,
  kind: 'OpenStackRemediationTemplate',
  plural: 'openstackremediationtemplates',
  namespaced: true,
});
const SecretResource = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});

export type Osr = KubeObject & { status?: RemediationStatus };

export interface World {
  readonly client: KubeClient;
  /** Where the Node and its pods live: the workload cluster, or `client` when self-hosted. */
  readonly nodeClient: KubeClient;
  readonly ns: string;
  readonly fake: FakeOpenStack;
  readonly serverId: string;
  readonly kubelet: FakeKubelet;
  readonly nodeName: string;
  readonly machineName: string;
  /** Creates the OpenStackRemediation as the MHC would; returns it as created. */
  createRemediation(): Promise<Osr>;
  osr(): Promise<Osr | undefined>;
  node(): Promise<KubeNode>;
  machine(): Promise<KubeObject & { status?: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function buildWorld(
  kc: KubeConfig,
  ns: string,
  unique: (p: string) => string,
  spec: Record<string, unknown>,
  opts: {
    /** A separate workload cluster holding the Node (default: the management cluster). */
    workload?: KubeConfig;
  } = {},
): Promise<World> {
  const client = createKubeClient(kc);
  const nodeClient = opts.workload ? createKubeClient(opts.workload) : client;
  const fake = await FakeOpenStack.start({ transitionDelayMs: 300 });
  const serverId = fake.addServer({ name: 'worker' });
  const nodeName = unique('osr-node');
  const kubelet = await startFakeKubelet(opts.workload ?? kc, {
    name: nodeName,
    providerID: `openstack:///${serverId}`,
    heartbeatSeconds: 1,
  });
  const machineName = 'worker-0';
  await client.create(SecretResource, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-config', namespace: ns },
    data: { 'clouds.yaml': Buffer.from(fake.cloudsYaml()).toString('base64') },
  } as KubeObject);
  await client.create(OpenStackMachineV1beta1, {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'OpenStackMachine',
    metadata: { name: `${machineName}-osm`, namespace: ns },
    spec: {
      flavor: 'm1.small',
      image: { id: '7a0c9f5e-0000-4000-8000-000000000001' },
      providerID: `openstack:///${serverId}`,
      identityRef: { name: 'cloud-config', cloudName: 'openstack' },
    },
  } as KubeObject);
  await client.create<KubeObject>(MachineV1beta2, {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: machineName,
      namespace: ns,
      labels: { 'cluster.x-k8s.io/cluster-name': 'my-cluster' },
    },
    spec: {
      clusterName: 'my-cluster',
      bootstrap: {
        configRef: {
          apiGroup: 'bootstrap.cluster.x-k8s.io',
          kind: 'KubeadmConfig',
          name: `${machineName}-boot`,
        },
      },
      infrastructureRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'OpenStackMachine',
        name: `${machineName}-osm`,
      },
      providerID: `openstack:///${serverId}`,
    },
  } as KubeObject);
  // status.nodeRef is written by the Machine controller; here through the status subresource.
  const machine = await client.patch<KubeObject & { spec: { clusterName: string } }>(
    MachineV1beta2,
    machineName,
    { type: 'merge', body: { status: { nodeRef: { name: nodeName } } } },
    { namespace: ns, subresource: 'status' },
  );
  const template = await client.create<KubeObject>(TemplateResource, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'OpenStackRemediationTemplate',
    metadata: { name: 'openstack-reboot', namespace: ns },
    spec: { template: { spec } },
  } as KubeObject);
  return {
    client,
    nodeClient,
    ns,
    fake,
    serverId,
    kubelet,
    nodeName,
    machineName,
    createRemediation: () =>
      client.create<Osr>(
        OpenStackRemediationResource,
        remediationFromTemplate(template as never, machine as never) as unknown as Osr,
      ),
    osr: async () =>
      client
        .get<Osr>(OpenStackRemediationResource, machineName, { namespace: ns })
        .catch(() => undefined),
    node: () => nodeClient.get<KubeNode>(NodeResource, nodeName),
    machine: () => client.get(MachineV1beta2, machineName, { namespace: ns }),
    close: async () => {
      await kubelet.stop();
      await fake.close();
      await nodeClient.delete(NodeResource, nodeName).catch(() => undefined);
    },
  };
}

/** Keeps every log record (debug included) as a JSON line, so tests can search them. */
export class CapturingLogger implements RuntimeLogger {
  constructor(
    readonly lines: string[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}
  private push(level: string, obj: object, msg?: string): void {
    this.lines.push(
      JSON.stringify({ level, ...this.bindings, ...obj, msg }, (_k, v: unknown) =>
        v instanceof Error ? { name: v.name, message: v.message } : v,
      ),
    );
  }
  debug(obj: object, msg?: string): void {
    this.push('debug', obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.push('info', obj, msg);
  }
  warn(obj: object, msg?: string): void {
    this.push('warn', obj, msg);
  }
  error(obj: object, msg?: string): void {
    this.push('error', obj, msg);
  }
  child(bindings: Record<string, unknown>): RuntimeLogger {
    return new CapturingLogger(this.lines, { ...this.bindings, ...bindings });
  }
}

/** One in-process controller with its own Manager, watching only the test's namespace. */
export function startController(
  kc: KubeConfig,
  ns: string,
  name = 'test',
  workloadClusterAccess?: WorkloadClusterAccess,
  /** The session's retry policy, e.g. one attempt so an outage answers at once. */
  openStackRetry?: Partial<RetryPolicy>,
) {
  const client = createKubeClient(kc);
  const logger = new CapturingLogger();
  const manager = new Manager({ name: `capo-remediation-${name}`, probes: false, logger });
  const ctl = addRemediationController(manager, {
    client,
    namespace: ns,
    identity: `test-${name}`,
    drainPollIntervalMs: 200,
    // These worlds are self-hosted (the Machine's Node is in this cluster, no kubeconfig
    // Secret): the management-cluster fallback must be asked for explicitly.
    workloadClusterAccess: workloadClusterAccess ?? 'secret-or-management',
    ...(openStackRetry !== undefined
      ? {
          openStackClient: (cloud: CloudConfig) =>
            createOpenStackClient(cloud, { logger, retry: openStackRetry }),
        }
      : {}),
  });
  const running = manager.start();
  return {
    manager,
    logs: logger.lines,
    metrics: ctl.metrics,
    clusters: ctl.clusters,
    stop: async () => {
      manager.stop();
      await running;
    },
  };
}

export async function until<T>(
  what: string,
  f: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function readyStatus(w: World): Promise<string | undefined> {
  return (await w.node()).status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

export async function phaseIs(w: World, phase: string): Promise<Osr | undefined> {
  const o = await w.osr();
  return o?.status?.phase === phase ? o : undefined;
}
