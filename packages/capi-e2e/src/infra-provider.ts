import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { startFakeKubelet, type FakeKubelet } from '@noderepair/envtest';

/**
 * The harness playing CAPO's manager, minimally and on purpose: no OpenStack, no servers.
 * For the OpenStackCluster it reports the infrastructure provisioned; for each
 * OpenStackMachine that a Machine owns it sets spec.providerID (openstack:///<uuid>) and
 * status.ready (CAPO speaks the v1beta1 provider contract), then starts a fake kubelet whose
 * Node carries that providerID, so the REAL Machine controller finds the Node and sets
 * nodeRef itself. When an OpenStackMachine goes away (Machine deleted), its kubelet stops.
 */

const GROUP = 'infrastructure.cluster.x-k8s.io';
const VERSION = 'v1beta1';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface InfraObject {
  metadata: { name: string; deletionTimestamp?: string; ownerReferences?: Array<{ kind: string; name: string }> };
  spec?: { providerID?: string };
  status?: { ready?: boolean };
}

export interface InfraProviderOptions {
  namespace: string;
  clusterName: string;
  /** Kubelet heartbeat interval for new nodes (seconds). */
  heartbeatSeconds?: number;
  /** How often the OpenStack objects are listed (ms). */
  pollMs?: number;
  /**
   * Picks the server uuid for a new Machine's OpenStackMachine (default: a random uuid), so a
   * test can register the same server in a fake Nova before the providerID is published.
   */
  newServerId?: (machineName: string) => string;
}

export class InfraProvider {
  /** Machine name -> its node's fake kubelet. The Node is named after the Machine. */
  readonly fakeKubelets = new Map<string, FakeKubelet>();
  /** OpenStackMachine name -> the providerID the harness gave it. */
  readonly providerIDs = new Map<string, string>();
  private readonly api: CustomObjectsApi;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastErr: Error | undefined;
  private errors = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: InfraProviderOptions,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  /** The last reconcile error (the loop keeps going, as a controller would). */
  get lastError(): Error | undefined {
    return this.lastErr;
  }

  get errorCount(): number {
    return this.errors;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.reconcile()
        .catch((err: unknown) => {
          this.errors++;
          this.lastErr = err instanceof Error ? err : new Error(String(err));
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.opts.pollMs ?? 500);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all([...this.fakeKubelets.values()].map((k) => k.stop()));
  }

  private list(plural: string): Promise<{ items: InfraObject[] }> {
    return this.api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.opts.namespace, plural }) as Promise<{
      items: InfraObject[];
    }>;
  }

  private async patch(plural: string, name: string, body: object, status: boolean): Promise<void> {
    const req = { group: GROUP, version: VERSION, namespace: this.opts.namespace, plural, name, body };
    if (status) await this.api.patchNamespacedCustomObjectStatus(req, mergePatch);
    else await this.api.patchNamespacedCustomObject(req, mergePatch);
  }

  async reconcile(): Promise<void> {
    for (const c of (await this.list('openstackclusters')).items) {
      if (c.status?.ready !== true) await this.patch('openstackclusters', c.metadata.name, { status: { ready: true } }, true);
    }
    const machines = (await this.list('openstackmachines')).items;
    const present = new Set<string>();
    for (const m of machines) {
      const name = m.metadata.name;
      present.add(name);
      if (m.metadata.deletionTimestamp) continue;
      // Like CAPO, wait for the owning Machine: it names the node we are about to start.
      const owner = m.metadata.ownerReferences?.find((o) => o.kind === 'Machine')?.name;
      if (!owner) continue;
      let providerID = m.spec?.providerID;
      if (!providerID) {
        const uuid = this.opts.newServerId ? this.opts.newServerId(owner) : randomUUID();
        providerID = `openstack:///${uuid}`;
        await this.patch('openstackmachines', name, { spec: { providerID } }, false);
        await this.patch('openstackmachines', name, { status: { ready: true, instanceID: uuid, instanceState: 'ACTIVE' } }, true);
      } else if (m.status?.ready !== true) {
        await this.patch('openstackmachines', name, { status: { ready: true, instanceState: 'ACTIVE' } }, true);
      }
      this.providerIDs.set(name, providerID);
      if (!this.fakeKubelets.has(owner)) {
        const kubelet = await startFakeKubelet(this.kc, {
          name: owner,
          providerID,
          heartbeatSeconds: this.opts.heartbeatSeconds ?? 1,
          labels: { 'kubernetes.io/hostname': owner },
        });
        this.fakeKubelets.set(owner, kubelet);
      }
    }
    // A Machine deleted by Cluster API takes its OpenStackMachine with it: the server is gone,
    // so is its kubelet (the Machine controller deletes the Node itself).
    for (const [machine, kubelet] of this.fakeKubelets) {
      const stillThere = machines.some(
        (m) => !m.metadata.deletionTimestamp && m.metadata.ownerReferences?.some((o) => o.kind === 'Machine' && o.name === machine),
      );
      if (!stillThere) {
        this.fakeKubelets.delete(machine);
        await kubelet.stop();
      }
    }
    for (const name of this.providerIDs.keys()) if (!present.has(name)) this.providerIDs.delete(name);
  }
}
