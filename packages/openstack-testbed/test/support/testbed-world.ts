// The capo-remediation integration world (packages/capo-remediation/test/support/
// remediation-env.ts) pointed at the REAL Keystone + Nova of the testbed instead of
// FakeOpenStack: a v1beta2 Machine with nodeRef and an infrastructureRef to a CAPO
// OpenStackMachine (real CRDs) whose providerID is openstack:///<uuid> of a server the
// testbed's Nova created, its identityRef Secret holding the testbed's clouds.yaml
// (application-credential cloud), a Node driven by a fake kubelet, and an
// OpenStackRemediationTemplate from which the OpenStackRemediation is cloned as the
// MachineHealthCheck does (remediationFromTemplate).
import {
  createKubeClient,
  customResource,
  NodeResource,
  type KubeClient,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { Manager } from '@noderepair/core/runtime';
import { startFakeKubelet, type ControlPlane, type FakeKubelet } from '@noderepair/envtest';
import { GROUP, VERSION } from '../../../capo-remediation/src/api/index.js';
import {
  addRemediationController,
  OpenStackRemediationResource,
} from '../../../capo-remediation/src/controller/index.js';
import { createHttpTransport, createOpenStackClient, type Transport } from '@noderepair/openstack';
import { remediationFromTemplate } from '../../../capo-remediation/src/testing/index.js';
import {
  CapturingLogger,
  MachineV1beta2,
  type Osr,
} from '../../../capo-remediation/test/support/remediation-env.js';
import type { OpenStackTestbed } from '../../src/index.js';

type KubeConfig = ControlPlane['kubeConfig'];

const Namespace = customResource({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
});
const Secret = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});
const Pod = customResource({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
});
const OpenStackMachineV1beta1 = customResource({
  group: 'infrastructure.cluster.x-k8s.io',
  version: 'v1beta1',
  kind: 'OpenStackMachine',
  plural: 'openstackmachines',
  namespaced: true,
});
const Template = customResource({
  group: GROUP,
  version: VERSION,
  kind: 'OpenStackRemediationTemplate',
  plural: 'openstackremediationtemplates',
  namespaced: true,
});

/** The cloud of the testbed's clouds.yaml the controller uses (v3applicationcredential). */
export const TESTBED_CLOUD = 'testbed-appcred';

export interface TestbedWorld {
  readonly client: KubeClient;
  readonly ns: string;
  readonly serverId: string;
  readonly kubelet: FakeKubelet;
  readonly nodeName: string;
  readonly machineName: string;
  createRemediation(): Promise<Osr>;
  osr(): Promise<Osr | undefined>;
  node(): Promise<KubeNode>;
  close(): Promise<void>;
}

export async function buildTestbedWorld(
  kc: KubeConfig,
  tb: OpenStackTestbed,
  name: string,
  spec: Record<string, unknown>,
): Promise<TestbedWorld> {
  const client = createKubeClient(kc);
  const ns = `${name}-${Date.now().toString(36)}`;
  await client.create(Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  } as KubeObject);
  // A real server of the testbed's Nova, ACTIVE before the Machine points at it.
  const serverId = await tb.createServer(`${name}-worker`);
  await tb.waitForServer(serverId, 'ACTIVE');
  const providerID = `openstack:///${serverId}`;
  const nodeName = `${name}-node`;
  const kubelet = await startFakeKubelet(kc, { name: nodeName, providerID, heartbeatSeconds: 1 });
  const machineName = 'worker-0';
  await client.create(Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-config', namespace: ns },
    data: { 'clouds.yaml': Buffer.from(tb.cloudsYaml).toString('base64') },
  } as KubeObject);
  await client.create(OpenStackMachineV1beta1, {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'OpenStackMachine',
    metadata: { name: `${machineName}-osm`, namespace: ns },
    spec: {
      flavor: tb.flavor,
      image: { filter: { name: tb.image } },
      providerID,
      identityRef: { name: 'cloud-config', cloudName: TESTBED_CLOUD },
    },
  } as KubeObject);
  await client.create<KubeObject>(MachineV1beta2, {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: machineName,
      namespace: ns,
      labels: { 'cluster.x-k8s.io/cluster-name': 'testbed' },
    },
    spec: {
      clusterName: 'testbed',
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
      providerID,
    },
  } as KubeObject);
  // status.nodeRef is the Machine controller's; written here through the status subresource.
  const machine = await client.patch<KubeObject & { spec: { clusterName: string } }>(
    MachineV1beta2,
    machineName,
    { type: 'merge', body: { status: { nodeRef: { name: nodeName } } } },
    { namespace: ns, subresource: 'status' },
  );
  const template = await client.create<KubeObject>(Template, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'OpenStackRemediationTemplate',
    metadata: { name: 'openstack-reboot', namespace: ns },
    spec: { template: { spec } },
  } as KubeObject);
  return {
    client,
    ns,
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
    node: () => client.get<KubeNode>(NodeResource, nodeName),
    close: async () => {
      await kubelet.stop();
      await client.delete(NodeResource, nodeName).catch(() => undefined);
      await client.delete(Namespace, ns).catch(() => undefined);
    },
  };
}

/** A workload pod bound to the node, reported Running as a kubelet would, for the drain to evict. */
export async function runningPodOn(w: TestbedWorld, name: string): Promise<void> {
  await w.client.create(Pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: w.ns },
    spec: {
      nodeName: w.nodeName,
      // No kubelet will confirm a graceful stop: 0 s lets the eviction delete the pod at once.
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
    },
  } as KubeObject);
  await w.client.patch(
    Pod,
    name,
    {
      type: 'merge',
      body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    },
    { namespace: w.ns, subresource: 'status' },
  );
}

/** A reboot request our controller sent to the real Nova, as Nova answered it. */
export interface SentReboot {
  readonly serverId: string;
  readonly type: string;
  readonly status: number;
  /** x-compute-request-id of the answer: the request_id Nova records in os-instance-actions. */
  readonly requestId: string | null;
  /** When Nova's answer arrived (ms, this machine's clock, which Nova's host shares). */
  readonly answeredAt: number;
}

/**
 * The controller in-process with its own Manager (as remediation-env.ts's startController),
 * its OpenStack clients built with a transport that records every reboot request and Nova's
 * request id for it, so a test can match them with Nova's os-instance-actions. `ns`
 * undefined: one controller for every namespace, as deployed (many remediations at once).
 */
export function startRecordedController(kc: KubeConfig, ns: string | undefined) {
  const client = createKubeClient(kc);
  const logger = new CapturingLogger();
  const reboots: SentReboot[] = [];
  const transports: Array<{ close(): Promise<void> }> = [];
  const manager = new Manager({ name: `capo-remediation-${ns ?? 'all'}`, probes: false, logger });
  const ctl = addRemediationController(manager, {
    client,
    namespace: ns,
    identity: `e2e-${ns ?? 'all'}`,
    drainPollIntervalMs: 200,
    // Self-hosted: the Machines' Nodes are in this cluster. The management-cluster fallback
    // is explicit (auto requires Cluster API's <cluster>-kubeconfig Secret).
    workloadClusterAccess: 'secret-or-management',
    openStackClient: (cloud) => {
      const http = createHttpTransport({ caCert: cloud.caCert, verify: cloud.verify });
      transports.push(http);
      const transport: Transport = async (req) => {
        const res = await http.transport(req);
        const m = /\/servers\/([^/]+)\/action$/.exec(new URL(req.url).pathname);
        if (req.method === 'POST' && m && typeof req.body === 'string') {
          const type = (JSON.parse(req.body) as { reboot?: { type?: string } }).reboot?.type;
          if (type !== undefined)
            reboots.push({
              serverId: decodeURIComponent(m[1] as string),
              type,
              status: res.status,
              requestId: res.headers.get('x-compute-request-id'),
              answeredAt: Date.now(),
            });
        }
        return res;
      };
      return createOpenStackClient(cloud, { transport, logger: manager.log });
    },
  });
  const running = manager.start();
  return {
    logs: logger.lines,
    metrics: ctl.metrics,
    reboots,
    stop: async () => {
      manager.stop();
      await running;
      await Promise.all(transports.map((t) => t.close()));
    },
  };
}
