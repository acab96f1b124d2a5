// The world of the capo-remediation chaos tests, built as Cluster API builds it (the same shape
// as packages/capo-remediation/test/support/remediation-env.ts): a PRIVATE control plane (so
// its kube-apiserver can be restarted and paused), Cluster API's and CAPO's real CRDs and ours,
// the shipped RBAC, and per scenario a namespace with a v1beta2 Machine -> OpenStackMachine ->
// identity Secret (clouds.yaml) -> FakeOpenStack server, a fake kubelet's Node, and the
// OpenStackRemediation cloned from its template as the MachineHealthCheck does.
//
// The controller runs as a real process (src/controller/main.ts) with a ServiceAccount token.
// Its Nova traffic goes through a GateProxy (so a test can hold the reboot call), and, when
// asked, its kube-apiserver traffic too.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKubeClient,
  customResource,
  EventResource,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { FAKE_DEFAULTS, FakeOpenStack } from '@noderepair/openstack/testing';
import { GROUP, VERSION, type RemediationStatus } from '@noderepair/capo-remediation/api';
import { OpenStackRemediationResource } from '@noderepair/capo-remediation/controller';
import { remediationFromTemplate } from '@noderepair/capo-remediation/testing';
import {
  freePort,
  startControlPlane,
  startFakeKubelet,
  type ControlPlane,
  type FakeKubelet,
} from '@noderepair/envtest';
import { capiCrdPaths } from '../../capo-remediation/test/support/capi-crds.js';
import { capoCrdPaths } from '../../capo-remediation/test/support/capo-crds.js';
import { capoControllerMain, ControllerProcess, repoRoot } from './controller-process.js';
import { GateProxy } from './gate-proxy.js';
import {
  applyObjects,
  ensureNamespace,
  serviceAccountToken,
  shippedRbac,
  tokenKubeconfig,
  type ManifestObject,
} from './least-privilege.js';

export const SYSTEM_NAMESPACE = 'noderepair-system';
export const SERVICE_ACCOUNT = 'capo-remediation-controller';

const MachineV1beta2 = customResource({
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
const PodResource = customResource({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
});

export type Osr = KubeObject & { status?: RemediationStatus };

export interface ControllerStart {
  /** POD_NAME: the Lease holder identity and the events' reportingInstance. */
  readonly identity: string;
  /** Lease name; one per scenario so a killed leader of an earlier one does not block. */
  readonly leaseId: string;
  /** Watch only this namespace. */
  readonly namespace: string;
  /** Talk to the kube-apiserver through the cluster's GateProxy. */
  readonly viaProxy?: boolean;
  /** Another kubeconfig (e.g. a ServiceAccount with fewer rights). */
  readonly kubeconfig?: string;
  /** --workload-cluster-access; default secret-or-management (these worlds are self-hosted). */
  readonly workloadClusterAccess?: 'auto' | 'secret-or-management';
}

export class CapoCluster {
  readonly admin: KubeClient;
  readonly processes: ControllerProcess[] = [];
  readonly worlds: CapoWorld[] = [];
  /** Every credential the suite knows of (for the secret scan). */
  readonly secrets = new Set<string>([
    FAKE_DEFAULTS.user.password,
    FAKE_DEFAULTS.applicationCredential.secret,
  ]);

  private constructor(
    readonly cp: ControlPlane,
    readonly dir: string,
    readonly logFile: string,
    readonly kubeProxy: GateProxy,
    readonly kubeconfig: string,
    readonly kubeconfigViaProxy: string,
  ) {
    this.admin = createKubeClient(cp.kubeConfig);
    this.secrets.add(cp.adminToken);
  }

  static async start(
    dir: string,
    name: string,
    opts: { apiServerExtraArgs?: string[] } = {},
  ): Promise<CapoCluster> {
    mkdirSync(dir, { recursive: true });
    const logFile = join(dir, `${name}.log`);
    appendFileSync(logFile, '');
    const cp = await startControlPlane({
      startTimeoutMs: 120_000,
      ...(opts.apiServerExtraArgs ? { apiServerExtraArgs: opts.apiServerExtraArgs } : {}),
    });
    try {
      const capi = await capiCrdPaths(['machines']);
      const capo = await capoCrdPaths(['openstackmachines']);
      const ours = ['openstackremediationtemplates', 'openstackremediations'].map((p) =>
        join(repoRoot, 'packages', 'capo-remediation', 'config', 'crd', `${GROUP}_${p}.yaml`),
      );
      await cp.installCRDs([...capi, ...capo, ...ours], 120_000);
      await ensureNamespace(cp.kubeConfig, SYSTEM_NAMESPACE);
      await applyObjects(cp.kubeConfig, shippedRbac());
      const token = await serviceAccountToken(cp.kubeConfig, SYSTEM_NAMESPACE, SERVICE_ACCOUNT);
      // The proxy serves the apiserver's own certificate (valid for 127.0.0.1), so the
      // controller's kubeconfig keeps verifying TLS against the same CA.
      const certs = join(cp.dir, 'certs');
      const proxy = await GateProxy.start({
        upstream: cp.server,
        ca: cp.caPem,
        tls: {
          cert: readFileSync(join(certs, 'apiserver.crt'), 'utf8'),
          key: readFileSync(join(certs, 'apiserver.key'), 'utf8'),
        },
      });
      const kc = tokenKubeconfig(
        join(dir, `${name}.kubeconfig`),
        cp.server,
        cp.caPem,
        token,
        SERVICE_ACCOUNT,
      );
      const kcp = tokenKubeconfig(
        join(dir, `${name}-proxy.kubeconfig`),
        proxy.url,
        cp.caPem,
        token,
        SERVICE_ACCOUNT,
      );
      const c = new CapoCluster(cp, dir, logFile, proxy, kc, kcp);
      c.secrets.add(token);
      return c;
    } catch (e) {
      await cp.stop();
      throw e;
    }
  }

  /** Applies RBAC objects and returns a kubeconfig for a ServiceAccount bound by them. */
  async serviceAccountKubeconfig(
    objects: ManifestObject[],
    sa: string,
    file: string,
  ): Promise<string> {
    await applyObjects(this.cp.kubeConfig, objects);
    const token = await serviceAccountToken(this.cp.kubeConfig, SYSTEM_NAMESPACE, sa);
    this.secrets.add(token);
    return tokenKubeconfig(join(this.dir, file), this.cp.server, this.cp.caPem, token, sa);
  }

  /** Starts the controller process exactly as the Deployment runs it (plus --namespace). */
  async startController(o: ControllerStart): Promise<ControllerProcess> {
    const probe = await freePort();
    const p = ControllerProcess.start({
      name: o.identity,
      entry: capoControllerMain,
      args: [
        `--kubeconfig=${o.kubeconfig ?? (o.viaProxy ? this.kubeconfigViaProxy : this.kubeconfig)}`,
        '--leader-elect',
        `--leader-election-id=${o.leaseId}`,
        `--leader-election-namespace=${SYSTEM_NAMESPACE}`,
        '--metrics-bind-address=0',
        `--health-probe-bind-address=127.0.0.1:${probe}`,
        `--namespace=${o.namespace}`,
        // Self-hosted: the Machines' Nodes are in this cluster, there is no kubeconfig Secret.
        `--workload-cluster-access=${o.workloadClusterAccess ?? 'secret-or-management'}`,
      ],
      env: { POD_NAME: o.identity, POD_NAMESPACE: SYSTEM_NAMESPACE },
      logFile: this.logFile,
    });
    p.probePort = probe;
    this.processes.push(p);
    return p;
  }

  async world(ns: string, spec: Record<string, unknown>): Promise<CapoWorld> {
    const w = await CapoWorld.build(this, ns, spec);
    this.worlds.push(w);
    return w;
  }

  /** Every Event in the cluster (all namespaces). */
  async events(): Promise<KubeEvent[]> {
    return (await this.admin.list<KubeEvent>(EventResource)).items;
  }

  async stop(): Promise<void> {
    for (const p of this.processes) await p.stop(5_000);
    for (const w of this.worlds) await w.close();
    await this.kubeProxy.close();
    await this.cp.stop();
  }
}

export class CapoWorld {
  readonly machineName = 'worker-0';
  #bootWatcher: NodeJS.Timeout | undefined;
  #boots = 0;
  /** Node reboots the fake kubelet performed because Nova rebooted the server. */
  nodeReboots = 0;

  private constructor(
    readonly cluster: CapoCluster,
    readonly ns: string,
    readonly fake: FakeOpenStack,
    readonly nova: GateProxy,
    readonly serverId: string,
    readonly kubelet: FakeKubelet,
    readonly nodeName: string,
    private readonly template: KubeObject,
    private readonly machine: KubeObject,
  ) {}

  static async build(
    cluster: CapoCluster,
    ns: string,
    spec: Record<string, unknown>,
  ): Promise<CapoWorld> {
    const admin = cluster.admin;
    await ensureNamespace(cluster.cp.kubeConfig, ns);
    const fake = await FakeOpenStack.start({ transitionDelayMs: 300 });
    const nova = await GateProxy.start({ upstream: fake.baseUrl, rewriteOrigin: true });
    const serverId = fake.addServer({ name: `${ns}-worker` });
    const nodeName = `${ns}-node`;
    const kubelet = await startFakeKubelet(cluster.cp.kubeConfig, {
      name: nodeName,
      providerID: `openstack:///${serverId}`,
      heartbeatSeconds: 1,
    });
    const machineName = 'worker-0';
    // clouds.yaml names the proxy: every Keystone and Nova call of the controller crosses it.
    const clouds = fake.cloudsYaml().split(fake.baseUrl).join(nova.url);
    await admin.create(SecretResource, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cloud-config', namespace: ns },
      data: { 'clouds.yaml': Buffer.from(clouds).toString('base64') },
    } as KubeObject);
    await admin.create(OpenStackMachineV1beta1, {
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
    await admin.create<KubeObject>(MachineV1beta2, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: {
        name: machineName,
        namespace: ns,
        labels: { 'cluster.x-k8s.io/cluster-name': 'chaos' },
      },
      spec: {
        clusterName: 'chaos',
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
    const machine = await admin.patch<KubeObject>(
      MachineV1beta2,
      machineName,
      { type: 'merge', body: { status: { nodeRef: { name: nodeName } } } },
      { namespace: ns, subresource: 'status' },
    );
    const template = await admin.create<KubeObject>(TemplateResource, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'OpenStackRemediationTemplate',
      metadata: { name: 'openstack-reboot', namespace: ns },
      spec: { template: { spec } },
    } as KubeObject);
    const w = new CapoWorld(
      cluster,
      ns,
      fake,
      nova,
      serverId,
      kubelet,
      nodeName,
      template,
      machine,
    );
    w.#watchBoots();
    return w;
  }

  /**
   * The node behaves like the VM: when Nova has rebooted the server (its boot count went up),
   * the kubelet comes back with a new bootID. A reboot that never reached Nova brings nothing.
   */
  #watchBoots(): void {
    this.#bootWatcher = setInterval(() => {
      const boots = this.fake.server(this.serverId)?.boots ?? this.#boots;
      if (boots > this.#boots) {
        this.#boots = boots;
        this.nodeReboots += 1;
        void this.kubelet.reboot(300).catch(() => undefined);
      }
    }, 200);
  }

  /**
   * Publishes `chaos-kubeconfig` as Cluster API does for every cluster: under the default
   * `--workload-cluster-access=auto` the controller reaches the Machines' Nodes only through
   * it (no silent fallback). The workload cluster here is this same control plane.
   */
  async publishKubeconfigSecret(kubeconfigYaml: string): Promise<void> {
    await this.cluster.admin.create(SecretResource, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'chaos-kubeconfig',
        namespace: this.ns,
        labels: { 'cluster.x-k8s.io/cluster-name': 'chaos' },
      },
      type: 'cluster.x-k8s.io/secret',
      data: { value: Buffer.from(kubeconfigYaml).toString('base64') },
    } as KubeObject);
  }

  /** The node goes NotReady (container runtime down), as the MachineHealthCheck would see it. */
  async breakNode(): Promise<void> {
    await this.kubelet.setNotReady();
  }

  /** A pod on the node that cannot go away by itself (a finalizer): the drain waits for it. */
  async addStuckPod(name = 'stuck'): Promise<void> {
    await this.cluster.admin.create(PodResource, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: this.ns,
        finalizers: ['chaos.noderepair.dev/hold'],
        // A controller owner, so the drain evicts it (an unmanaged pod would block the drain).
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'app-7d4b9c',
            uid: '5f1c2a9e-0000-4000-8000-00000000c4a0',
            controller: true,
          },
        ],
      },
      spec: {
        nodeName: this.nodeName,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'app', image: 'registry.invalid/app:1' }],
      },
    } as KubeObject);
  }

  async podTerminating(name = 'stuck'): Promise<boolean> {
    const p = await this.cluster.admin
      .get<KubeObject>(PodResource, name, { namespace: this.ns })
      .catch(() => undefined);
    return p?.metadata?.deletionTimestamp !== undefined;
  }

  /** Lets the stuck pod go (removes its finalizer). */
  async releaseStuckPod(name = 'stuck'): Promise<void> {
    await this.cluster.admin
      .patch(
        PodResource,
        name,
        { type: 'merge', body: { metadata: { finalizers: null } } },
        { namespace: this.ns },
      )
      .catch(() => undefined);
  }

  createRemediation(): Promise<Osr> {
    return this.cluster.admin.create<Osr>(
      OpenStackRemediationResource,
      remediationFromTemplate(this.template as never, this.machine as never) as unknown as Osr,
    );
  }

  async osr(): Promise<Osr | undefined> {
    return this.cluster.admin
      .get<Osr>(OpenStackRemediationResource, this.machineName, { namespace: this.ns })
      .catch(() => undefined);
  }

  async phase(): Promise<string | undefined> {
    return (await this.osr())?.status?.phase;
  }

  /** Points the Machine's status.nodeRef at another Node (a decoy of the same role). */
  async pointNodeRefAt(name: string): Promise<void> {
    await this.cluster.admin.patch<KubeObject>(
      MachineV1beta2,
      this.machineName,
      { type: 'merge', body: { status: { nodeRef: { name } } } },
      { namespace: this.ns, subresource: 'status' },
    );
  }

  node(): Promise<KubeNode> {
    return this.cluster.admin.get<KubeNode>(NodeResource, this.nodeName);
  }

  /** Reboots Nova accepted for this world's server (the ground truth for double reboots). */
  rebootCount(): number {
    return this.fake.rebootCount(this.serverId);
  }

  async events(): Promise<KubeEvent[]> {
    return (await this.cluster.admin.list<KubeEvent>(EventResource, { namespace: this.ns })).items;
  }

  /** Keystone tokens the fake issued, for the secret scan. */
  tokens(): string[] {
    return [...this.fake.identity.tokens.keys(), ...this.nova.credentials];
  }

  /** Path predicate for Nova's server action endpoint of this world's server. */
  isAction(path: string, method: string): boolean {
    return method === 'POST' && path.includes(`/servers/${this.serverId}/action`);
  }

  isMetadataWrite(path: string, method: string): boolean {
    return method === 'PUT' && path.includes(`/servers/${this.serverId}/metadata/`);
  }

  async close(): Promise<void> {
    if (this.#bootWatcher) clearInterval(this.#bootWatcher);
    this.#bootWatcher = undefined;
    for (const t of this.tokens()) this.cluster.secrets.add(t);
    await this.kubelet.stop().catch(() => undefined);
    await this.nova.close();
    await this.fake.close();
  }
}
