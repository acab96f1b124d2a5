// The scale world: ONE envtest kube-apiserver (no kube-controller-manager, so no node
// lifecycle controller: Nodes keep the conditions the writer posts), Cluster API's and
// CAPO's CRDs with the real manager's webhooks, a self-managed Cluster, and N workers,
// each a Node + OpenStackMachine + stand-alone Machine that the REAL Machine controller
// links to its Node (nodeRef). The Cluster API manager can be stopped and started again,
// so each scale measures a fresh process.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  KubernetesObjectApi,
  type KubernetesObject,
  type V1MutatingWebhookConfiguration,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import {
  CapiManager,
  clusterObjects,
  controlPlaneMachineObjects,
  ensureCapiAssets,
  generateWebhookCerts,
  webhookConfigurations,
  withContractLabel,
  withConversionWebhook,
  CAPI_VERSION,
  type CapiAssets,
} from '@noderepair/capi-e2e';
import {
  createKubeClient,
  customResource,
  NodeResource,
  type KubeClient,
  type KubeObject,
} from '@noderepair/core/kube';
import {
  freePort,
  loadCRDs,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@noderepair/envtest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CAPI_GROUP,
  INFRA_GROUP,
  machineHealthCheck,
  remediationTemplate,
  workerMachine,
  workerOpenStackMachine,
  workerOpenStackMachineStatus,
} from './capi-objects.js';
import { unlinkedMachines } from './machine-table.js';
import { BENCH_NAMESPACE, createIdentities, type Identity, type Party } from './identities.js';
import { createWorkerNodes, forEachLimited, POOL_LABEL, workerNode } from './node-writer.js';

export const CLUSTER_NAME = 'bench';
/**
 * The test bed (etcd, kube-apiserver) and the unmeasured provisioning manager run with a lazier
 * Go GC: growth is bound by the apiserver's CPU on 2 cores, and at 2,000 workers this cut its
 * CPU from 519 s to 300 s and the growth from 373 s to 220 s. Both measured controllers see the
 * same apiserver; the measured Cluster API manager keeps the Go defaults.
 */
const TEST_BED_GC = { GOGC: '400', GOMEMLIMIT: '6GiB' };
const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

const remediationCRDs = ['openstackremediationtemplates', 'openstackremediations'].map((p) =>
  fileURLToPath(
    new URL(
      `../../../capo-remediation/config/crd/remediation.noderepair.dev_${p}.yaml`,
      import.meta.url,
    ),
  ),
);

export const MachineResource = customResource({
  group: CAPI_GROUP,
  version: 'v1beta2',
  kind: 'Machine',
  namespaced: true,
});
export const OpenStackMachineResource = customResource({
  group: INFRA_GROUP,
  version: 'v1beta1',
  kind: 'OpenStackMachine',
  namespaced: true,
});
export const OpenStackClusterResource = customResource({
  group: INFRA_GROUP,
  version: 'v1beta1',
  kind: 'OpenStackCluster',
  namespaced: true,
});
export const ClusterResource = customResource({
  group: CAPI_GROUP,
  version: 'v1beta2',
  kind: 'Cluster',
  namespaced: true,
});

type Conditioned = KubeObject & {
  status?: { conditions?: Array<{ type: string; status: string }>; nodeRef?: { name?: string } };
};
const isTrue = (o: Conditioned, type: string) =>
  o.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

export class CapiWorld {
  /** Worker indexes created so far (0..count-1). */
  count = 0;
  manager: CapiManager | undefined;
  private provisioning = false;
  private readonly admin: KubeClient;
  private readonly writer: KubeClient;

  private constructor(
    readonly cp: ControlPlane,
    readonly identities: Record<Party, Identity>,
    readonly assets: CapiAssets,
    readonly dir: string,
    private readonly webhook: { port: number; certDir: string },
  ) {
    this.admin = createKubeClient(cp.kubeConfig);
    this.writer = createKubeClient(identities.writer.kubeConfig);
  }

  /** envtest's admin (exempt from APF: the bench's own reads are not counted for anyone). */
  get adminClient(): KubeClient {
    return this.admin;
  }

  get writerClient(): KubeClient {
    return this.writer;
  }

  /**
   * `selfCluster` false: no Cluster is created (the capo scale point adds its own clusters,
   * each on another control plane, with {@link addCluster}).
   */
  static async start(opts: { timeoutSeconds: number; selfCluster?: boolean }): Promise<CapiWorld> {
    const assets = await ensureCapiAssets({ progress: log });
    const dir = mkdtempSync(join(tmpdir(), 'noderepair-bench-'));
    // No kube-controller-manager at all: nothing judges the Nodes but the two controllers.
    const cp = await startControlPlane({
      controllerManager: false,
      progress: log,
      env: TEST_BED_GC,
    });
    try {
      const identities = await createIdentities(cp, dir);
      const webhookPort = await freePort();
      const certs = await generateWebhookCerts(join(dir, 'webhook-certs'));
      const endpoint = { baseUrl: `https://127.0.0.1:${webhookPort}`, caPem: certs.caPem };
      const yamls = (d: string) =>
        readdirSync(d)
          .filter((f) => f.endsWith('.yaml'))
          .map((f) => join(d, f));
      await cp.installCRDs([
        ...loadCRDs(yamls(assets.capiCrdDir)).map((c) => withConversionWebhook(c, endpoint)),
        ...loadCRDs(yamls(assets.capoCrdDir)).map((c) =>
          withContractLabel(
            c,
            'v1beta1',
            c.spec.versions.filter((v) => v.served).map((v) => v.name),
          ),
        ),
        ...remediationCRDs,
      ]);
      const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
      for (const w of webhookConfigurations(
        readFileSync(assets.capiWebhookManifests, 'utf8'),
        endpoint,
        'capi',
      )) {
        if (w.kind === 'MutatingWebhookConfiguration')
          await admission.createMutatingWebhookConfiguration({
            body: w as V1MutatingWebhookConfiguration,
          });
        else
          await admission.createValidatingWebhookConfiguration({
            body: w as V1ValidatingWebhookConfiguration,
          });
      }
      const world = new CapiWorld(cp, identities, assets, dir, {
        port: webhookPort,
        certDir: certs.dir,
      });
      await world.startManager();
      if (opts.selfCluster !== false) await world.createCluster(opts.timeoutSeconds);
      return world;
    } catch (e) {
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /**
   * The real Cluster API manager as the `capi` identity (its workload-cluster client too).
   * While provisioning (not measured) its clients get higher rate limits, to link thousands
   * of new Machines sooner; the measured manager runs with the defaults.
   */
  async startManager(o: { provisioning?: boolean } = {}): Promise<CapiManager> {
    if (this.manager?.running) {
      if (this.provisioning === (o.provisioning ?? false)) return this.manager;
      await this.stopManager();
    }
    this.provisioning = o.provisioning ?? false;
    this.manager = await CapiManager.start({
      binary: this.assets.manager,
      kubeconfigPath: this.identities.capi.kubeconfigPath,
      dir: this.dir,
      webhookCertDir: this.webhook.certDir,
      webhookPort: this.webhook.port,
      // The released manifests' default log level; v=2 would log every reconcile.
      verbosity: 0,
      // Its workload-cluster client (Node reads and the Machine controller's Node patches) is
      // limited to 20 QPS by default: linking 10,000 Nodes would take most of the budget.
      ...(this.provisioning
        ? {
            extraArgs: [
              '--clustercache-client-qps=500',
              '--clustercache-client-burst=1000',
              '--kube-api-qps=500',
              '--kube-api-burst=1000',
            ],
            env: TEST_BED_GC,
          }
        : {}),
    });
    return this.manager;
  }

  async stopManager(): Promise<void> {
    await this.manager?.stop();
    this.manager = undefined;
  }

  private async createCluster(timeoutSeconds: number): Promise<void> {
    const ns = BENCH_NAMESPACE;
    // The workload cluster is this same API server, reached with the capi identity's token:
    // the manager's node watches then count as its own requests too.
    await this.addCluster({
      namespace: ns,
      clusterName: CLUSTER_NAME,
      access: { server: this.cp.server, caPem: this.cp.caPem, token: this.identities.capi.token },
      nodes: this.admin,
      cpProviderID: 'openstack:///00000000-0000-4000-8000-c00000000000',
      extra: [remediationTemplate(ns)],
    });
    await KubernetesObjectApi.makeApiClient(this.cp.kubeConfig).create(
      machineHealthCheck(ns, CLUSTER_NAME, timeoutSeconds),
    );
  }

  /**
   * A Cluster whose workload API server is `access` (its Nodes written through `nodes`): the
   * Cluster API objects, `extra` objects, and CAPO's part played once (cluster and
   * control-plane machine ready, the control-plane Node posted), until the real manager reports
   * InfrastructureReady and ControlPlaneInitialized (a MachineHealthCheck remediates nothing
   * before).
   */
  async addCluster(p: {
    namespace: string;
    clusterName: string;
    access: { server: string; caPem: string; token: string };
    nodes: KubeClient;
    cpProviderID: string;
    extra?: KubernetesObject[];
  }): Promise<void> {
    const objects = KubernetesObjectApi.makeApiClient(this.cp.kubeConfig);
    const ns = p.namespace;
    const all: KubernetesObject[] = [
      ...clusterObjects({ namespace: ns, clusterName: p.clusterName, access: p.access }),
      ...controlPlaneMachineObjects({ namespace: ns, clusterName: p.clusterName }),
      ...(p.extra ?? []),
    ];
    for (const o of all) await objects.create(o);
    await this.admin.patch(
      OpenStackClusterResource,
      p.clusterName,
      { type: 'merge', body: { status: { ready: true } } },
      {
        namespace: ns,
        subresource: 'status',
      },
    );
    const cpName = `${p.clusterName}-control-plane-0`;
    await this.admin.patch(
      OpenStackMachineResource,
      cpName,
      { type: 'merge', body: { spec: { providerID: p.cpProviderID } } },
      { namespace: ns },
    );
    await this.admin.patch(
      OpenStackMachineResource,
      cpName,
      {
        type: 'merge',
        body: {
          status: {
            ready: true,
            instanceID: p.cpProviderID.replace('openstack:///', ''),
            instanceState: 'ACTIVE',
          },
        },
      },
      { namespace: ns, subresource: 'status' },
    );
    const cpNode = workerNode(99_999, new Date());
    cpNode.metadata = {
      name: cpName,
      labels: { 'kubernetes.io/hostname': cpName, 'node-role.kubernetes.io/control-plane': '' },
    };
    cpNode.spec = { providerID: p.cpProviderID };
    await p.nodes.create(NodeResource, cpNode);
    await waitFor(
      `Cluster ${p.clusterName} InfrastructureReady and ControlPlaneInitialized`,
      async () => {
        if (!this.manager?.running)
          throw new Error(`cluster-api-controller exited:\n${this.manager?.logTail(3000) ?? ''}`);
        const c = await this.admin.get<Conditioned>(ClusterResource, p.clusterName, {
          namespace: ns,
        });
        return isTrue(c, 'InfrastructureReady') && isTrue(c, 'ControlPlaneInitialized')
          ? true
          : undefined;
      },
      180_000,
      500,
    );
  }

  /** Adds workers until there are `total`: Nodes by the writer, then OpenStackMachines and Machines. */
  async growTo(total: number): Promise<void> {
    const ns = BENCH_NAMESPACE;
    const idx = Array.from({ length: Math.max(0, total - this.count) }, (_, k) => this.count + k);
    if (idx.length === 0) return;
    const t0 = Date.now();
    await createWorkerNodes(this.writer, idx);
    log(`${idx.length} Nodes posted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const t1 = Date.now();
    await forEachLimited(idx, 16, async (i) => {
      const osm = workerOpenStackMachine(ns, CLUSTER_NAME, i) as KubeObject;
      await this.admin.create(OpenStackMachineResource, osm, { namespace: ns });
      await this.admin.patch(
        OpenStackMachineResource,
        osm.metadata!.name!,
        { type: 'merge', body: workerOpenStackMachineStatus(i) },
        { namespace: ns, subresource: 'status' },
      );
      await this.admin.create(MachineResource, workerMachine(ns, CLUSTER_NAME, i) as KubeObject, {
        namespace: ns,
      });
    });
    log(
      `${idx.length} OpenStackMachines + Machines created in ${((Date.now() - t1) / 1000).toFixed(1)} s`,
    );
    this.count = total;
  }

  /** Worker Machines without a nodeRef yet. */
  machinesWithoutNodeRef(): Promise<string[]> {
    return unlinkedMachines(this.cp, BENCH_NAMESPACE, `${POOL_LABEL}=workers`);
  }

  /**
   * Waits until the real Machine controller has linked every worker Machine to its Node.
   * While the cluster grows, many of its reconciles fail: its patch helper re-reads the
   * Machine from a cache that lags its own write by more than its 5 retries, so the
   * conditions patch times out. Each failure requeues the Machine with a per-item exponential
   * backoff (Cluster API's ReconcilerRateLimiting: 5 ms doubling up to 1000 s), so at 10,000
   * workers the last few hundred Machines, failed a dozen times, wait minutes for a retry.
   * When under 1 % of the unlinked ones were linked in a whole `windowMs`, the bench touches
   * each unlinked one (an annotation): the update event queues it at once, as any change to
   * a Machine would.
   */
  async waitForNodeRefs(timeoutMs: number, windowMs = 30_000): Promise<void> {
    const t0 = Date.now();
    let last = -1;
    // Unlinked Machines at the start of the current window.
    let window: { at: number; unlinked: number } | undefined;
    await waitFor(
      `${this.count} worker Machines with a nodeRef`,
      async () => {
        if (!this.manager?.running)
          throw new Error(`cluster-api-controller exited:\n${this.manager?.logTail(3000) ?? ''}`);
        const unlinked = await this.machinesWithoutNodeRef();
        const n = this.count - unlinked.length;
        if (n !== last)
          log(
            `machines with nodeRef: ${n}/${this.count} after ${((Date.now() - t0) / 1000).toFixed(0)} s`,
          );
        last = n;
        if (unlinked.length === 0) return true;
        window ??= { at: Date.now(), unlinked: unlinked.length };
        if (Date.now() - window.at >= windowMs) {
          // Under 1 % of the rest linked in a whole window: they wait in the backoff. Only
          // then: nudging thousands of Machines costs the busy apiserver more than it saves
          // while the manager is still working through its queue (measured: a nudge after a
          // 20 s window slowed growing from 1,000 to 5,000 down).
          if (window.unlinked - unlinked.length < 0.01 * window.unlinked) {
            try {
              await this.nudge(unlinked);
              log(
                `nudged ${unlinked.length} unlinked Machines (waiting in the manager's error backoff)`,
              );
            } catch (e) {
              log(`nudging unlinked Machines failed (will wait): ${(e as Error).message}`);
            }
            // A fresh window from the next count (the nudge itself took time).
            window = undefined;
            return undefined;
          }
          window = { at: Date.now(), unlinked: unlinked.length };
        }
        return undefined;
      },
      timeoutMs,
      5_000,
    );
  }

  /** An annotation change on each Machine: the Machine controller queues it without backoff. */
  private async nudge(names: string[]): Promise<void> {
    const at = new Date().toISOString();
    await forEachLimited(names, 16, async (name) => {
      await this.admin.patch(
        MachineResource,
        name,
        {
          type: 'merge',
          body: { metadata: { annotations: { 'bench.noderepair.dev/nudged': at } } },
        },
        { namespace: BENCH_NAMESPACE },
      );
    });
  }

  get versions(): { clusterAPI: string; kubernetes: string } {
    return { clusterAPI: CAPI_VERSION, kubernetes: this.cp.version };
  }

  async stop(): Promise<void> {
    await this.stopManager();
    await this.cp.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
