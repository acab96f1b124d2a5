// The world of one capo-remediation scale point (N remediations x W workload clusters):
// the management control plane with the REAL Cluster API manager (cluster/capi-world.ts,
// without its self-managed cluster), W more envtest control planes as workload clusters
// (no kube-controller-manager: nothing but the bench touches their Nodes' conditions), the
// REAL OpenStack test bed's Keystone and Nova behind counting proxies, and N workers, each a
// real Nova server (fake virt driver) + its Node in its workload cluster + an
// OpenStackMachine + a v1beta2 Machine the real Machine controller links to the Node.
// Each cluster gets a MachineHealthCheck whose remediation template is ours (HardReboot,
// drain off), so Cluster API itself creates the OpenStackRemediations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { CLUSTER_NAME_LABEL } from '@noderepair/capi-e2e';
import {
  createKubeClient,
  customResource,
  NodeResource,
  type KubeClient,
  type KubeObject,
} from '@noderepair/core/kube';
import { startControlPlane, type ControlPlane } from '@noderepair/envtest';
import { computeUrl, issueToken, type OpenStackTestbed } from '@noderepair/openstack-testbed';
import { CapiWorld, MachineResource, OpenStackMachineResource } from '../cluster/capi-world.js';
import {
  CAPI_GROUP,
  machineHealthCheck,
  REMEDIATION_GROUP,
  REMEDIATION_VERSION,
  remediationTemplate,
  workerMachine,
  workerOpenStackMachine,
} from '../cluster/capi-objects.js';
import { BENCH_NAMESPACE } from '../cluster/identities.js';
import { forEachLimited, workerName, workerNode } from '../cluster/node-writer.js';
import { clusterOf } from './figures.js';
import { CountingProxy, partyOfUserAgent } from './proxy.js';

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
/** The test bed's clouds.yaml cloud the controller uses (an application credential). */
export const TESTBED_CLOUD = 'testbed-appcred';
export const CLOUD_SECRET = 'capo-cloud-config';
export const CAPO_TEMPLATE = 'capo-hard-reboot';
/** Same GC settings as the scale world's test bed processes (cluster/capi-world.ts). */
const TEST_BED_GC = { GOGC: '400', GOMEMLIMIT: '6GiB' };

const SecretResource = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  namespaced: true,
});

export const clusterName = (j: number): string => `capo-${j}`;

/** The template Cluster API clones into each OpenStackRemediation: one HARD reboot (pure). */
export function hardRebootTemplate(ns: string): KubernetesObject {
  return remediationTemplate(ns, CAPO_TEMPLATE, { type: 'HardReboot', timeoutSeconds: 600 });
}

/** One MachineHealthCheck per cluster; every worker may be remediated at once (pure). */
export function capoMachineHealthCheck(
  ns: string,
  cluster: string,
  timeoutSeconds: number,
): KubernetesObject {
  return machineHealthCheck(ns, cluster, timeoutSeconds, {
    name: cluster,
    template: CAPO_TEMPLATE,
    unhealthyLessThanOrEqualTo: '100%',
  });
}

export interface Workload {
  readonly name: string;
  readonly cp: ControlPlane;
  /** Every request of Cluster API and of our controller to this cluster crosses it. */
  readonly proxy: CountingProxy;
  /** envtest's admin of this cluster: the bench's Node writes (not proxied, not counted). */
  readonly admin: KubeClient;
}

export interface Worker {
  readonly index: number;
  readonly name: string;
  readonly serverId: string;
  readonly cluster: number;
}

export class CapoScaleWorld {
  private constructor(
    readonly capi: CapiWorld,
    readonly workloads: Workload[],
    readonly keystone: CountingProxy,
    readonly nova: CountingProxy,
    readonly workers: Worker[],
  ) {}

  /** `servers`: uuids of ACTIVE test bed servers, one per worker. */
  static async start(o: {
    tb: OpenStackTestbed;
    servers: readonly string[];
    clusters: number;
    timeoutSeconds: number;
  }): Promise<CapoScaleWorld> {
    const ns = BENCH_NAMESPACE;
    const capi = await CapiWorld.start({ timeoutSeconds: o.timeoutSeconds, selfCluster: false });
    const workloads: Workload[] = [];
    const proxies: CountingProxy[] = [];
    try {
      // Keystone's catalog names Nova's own origin: both proxies rewrite both origins.
      const novaOrigin = new URL(
        computeUrl(await issueToken(o.tb.authUrl, o.tb.password, o.tb.region)),
      ).origin;
      const keystone = await CountingProxy.start({
        upstream: new URL(o.tb.authUrl).origin,
        rewriteJson: true,
      });
      proxies.push(keystone);
      const nova = await CountingProxy.start({ upstream: novaOrigin, rewriteJson: true });
      proxies.push(nova);
      for (const p of [keystone, nova]) {
        p.rewrites.set(new URL(o.tb.authUrl).origin, keystone.url);
        p.rewrites.set(novaOrigin, nova.url);
      }
      const clouds = o.tb.cloudsYaml.split(new URL(o.tb.authUrl).origin).join(keystone.url);
      await capi.adminClient.create(SecretResource, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: CLOUD_SECRET, namespace: ns },
        data: { 'clouds.yaml': Buffer.from(clouds).toString('base64') },
      } as KubeObject);
      await capi.adminClient.create(
        customResource({
          group: REMEDIATION_GROUP,
          version: REMEDIATION_VERSION,
          kind: 'OpenStackRemediationTemplate',
          namespaced: true,
        }),
        hardRebootTemplate(ns) as KubeObject,
        { namespace: ns },
      );
      for (let j = 0; j < o.clusters; j++) {
        const name = clusterName(j);
        log(`workload cluster ${name}: starting its control plane`);
        const cp = await startControlPlane({
          controllerManager: false,
          progress: log,
          env: TEST_BED_GC,
        });
        const certs = join(cp.dir, 'certs');
        // The proxy serves the apiserver's own certificate (valid for 127.0.0.1): the
        // kubeconfig in the Secret keeps verifying TLS against the same CA.
        const proxy = await CountingProxy.start({
          upstream: cp.server,
          ca: cp.caPem,
          tls: {
            cert: readFileSync(join(certs, 'apiserver.crt'), 'utf8'),
            key: readFileSync(join(certs, 'apiserver.key'), 'utf8'),
          },
          keyOf: (_m, _p, ua) => partyOfUserAgent(ua),
        });
        const w: Workload = { name, cp, proxy, admin: createKubeClient(cp.kubeConfig) };
        workloads.push(w);
        await capi.addCluster({
          namespace: ns,
          clusterName: name,
          access: { server: proxy.url, caPem: cp.caPem, token: cp.adminToken },
          nodes: w.admin,
          cpProviderID: `openstack:///00000000-0000-4000-8000-c${String(j).padStart(11, '0')}`,
        });
      }
      const workers = o.servers.map((serverId, index) => ({
        index,
        name: workerName(index),
        serverId,
        cluster: clusterOf(index, o.clusters),
      }));
      const world = new CapoScaleWorld(capi, workloads, keystone, nova, workers);
      await world.createWorkers(o.timeoutSeconds);
      return world;
    } catch (e) {
      await Promise.all(proxies.map((p) => p.close()));
      for (const w of workloads) {
        await w.proxy.close();
        await w.cp.stop();
      }
      await capi.stop();
      throw e;
    }
  }

  /** Nodes (Ready) first, then OpenStackMachines and Machines; waits for every nodeRef. */
  private async createWorkers(timeoutSeconds: number): Promise<void> {
    const ns = BENCH_NAMESPACE;
    const admin = this.capi.adminClient;
    await forEachLimited(this.workers, 8, async (w) => {
      const node = workerNode(w.index, new Date());
      node.spec = { ...node.spec, providerID: `openstack:///${w.serverId}` };
      await this.workloads[w.cluster]!.admin.create(NodeResource, node);
      const cluster = clusterName(w.cluster);
      const osm = workerOpenStackMachine(ns, cluster, w.index) as KubeObject & {
        spec: Record<string, unknown>;
      };
      osm.spec = {
        ...osm.spec,
        providerID: `openstack:///${w.serverId}`,
        identityRef: { cloudName: TESTBED_CLOUD, name: CLOUD_SECRET },
      };
      await admin.create(OpenStackMachineResource, osm, { namespace: ns });
      await admin.patch(
        OpenStackMachineResource,
        w.name,
        {
          type: 'merge',
          body: { status: { ready: true, instanceID: w.serverId, instanceState: 'ACTIVE' } },
        },
        { namespace: ns, subresource: 'status' },
      );
      const m = workerMachine(ns, cluster, w.index) as KubeObject;
      m.metadata!.labels = { ...m.metadata!.labels, [CLUSTER_NAME_LABEL]: cluster };
      await admin.create(MachineResource, m, { namespace: ns });
    });
    this.capi.count = this.workers.length;
    await this.capi.waitForNodeRefs(600_000);
    for (let j = 0; j < this.workloads.length; j++)
      await admin.create(
        customResource({
          group: CAPI_GROUP,
          version: 'v1beta2',
          kind: 'MachineHealthCheck',
          namespaced: true,
        }),
        capoMachineHealthCheck(ns, clusterName(j), timeoutSeconds) as KubeObject,
        { namespace: ns },
      );
  }

  async stop(): Promise<void> {
    await this.keystone.close();
    await this.nova.close();
    for (const w of this.workloads) {
      await w.proxy.close();
      await w.cp.stop();
    }
    await this.capi.stop();
  }
}
