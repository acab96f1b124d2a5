import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1MutatingWebhookConfiguration,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import {
  freePort,
  loadCRDs,
  startControlPlane,
  waitFor,
  type CRDSource,
  type ControlPlane,
  type ControllerManagerOptions,
  type FakeKubelet,
} from '@noderepair/envtest';
import { CAPI_VERSION, CAPO_VERSION, ensureCapiAssets, type Progress } from './assets.js';
import { generateWebhookCerts } from './certs.js';
import { InfraProvider } from './infra-provider.js';
import { CapiManager } from './manager.js';
import {
  CAPI_GROUP,
  clusterObjects,
  controlPlaneMachineObjects,
  DEPLOYMENT_NAME_LABEL,
  machineDeploymentObjects,
} from './objects.js';
import { readWebhookConfigurations, withContractLabel, withConversionWebhook } from './webhooks.js';

export interface CapiEnvironmentOptions {
  namespace?: string;
  clusterName?: string;
  machineDeploymentName?: string;
  /** Worker Machines of the MachineDeployment (default 3). */
  replicas?: number;
  /** Extra CRDs to install before the manager starts (e.g. a remediation template kind). */
  extraCRDs?: CRDSource[];
  /** Objects applied right after the CRDs (e.g. an aggregate-to-manager ClusterRole). */
  extraObjects?: KubernetesObject[];
  /** Node lifecycle timing of kube-controller-manager (default: 8 s grace, 1 s period). */
  controllerManager?: ControllerManagerOptions;
  /** Server uuid for a new Machine's providerID (default random); see InfraProviderOptions. */
  newServerId?: (machineName: string) => string;
  /** Fake kubelet heartbeat interval (default 1 s). */
  heartbeatSeconds?: number;
  featureGates?: Record<string, boolean>;
  managerVerbosity?: number;
  /** Wait until every worker Machine has a nodeRef (default true). */
  waitForMachines?: boolean;
  progress?: Progress;
}

export interface MachineView {
  name: string;
  phase: string | undefined;
  nodeName: string | undefined;
  providerID: string | undefined;
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
  labels: Record<string, string>;
  deleting: boolean;
}

/** A running self-managed Cluster API management cluster with one worker MachineDeployment. */
export interface CapiEnvironment {
  controlPlane: ControlPlane;
  kubeConfig: KubeConfig;
  namespace: string;
  clusterName: string;
  machineDeploymentName: string;
  manager: CapiManager;
  infra: InfraProvider;
  /** Machine name -> the fake kubelet of its Node (the Node has the Machine's name). */
  fakeKubelets: Map<string, FakeKubelet>;
  versions: { clusterAPI: string; capo: string; kubernetes: string };
  /** Sets MachineDeployment spec.replicas. */
  scaleMachineDeployment(replicas: number): Promise<void>;
  /** The worker Machines of the MachineDeployment. */
  machines(): Promise<MachineView[]>;
  /** Waits until exactly `count` worker Machines are Running with a nodeRef and NodeHealthy=True. */
  waitForHealthyMachines(count: number, timeoutMs?: number): Promise<MachineView[]>;
  /** Log files: the Cluster API manager's and the control plane's. */
  logs(): Record<string, string>;
  /** Stops everything; with keepLogs the log files are copied to a kept directory, returned. */
  stop(opts?: { keepLogs?: boolean }): Promise<string | undefined>;
}

interface RawMachine {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { providerID?: string };
  status?: { phase?: string; nodeRef?: { name?: string }; conditions?: MachineView['conditions'] };
}

export const conditionOf = (m: MachineView, type: string) => m.conditions.find((c) => c.type === type);

const describeMachine = (m: MachineView): string =>
  `${m.name} phase=${m.phase ?? '-'} node=${m.nodeName ?? '-'} ` +
  ['Ready', 'NodeHealthy', 'HealthCheckSucceeded']
    .map((t) => {
      const c = conditionOf(m, t);
      return `${t}=${c ? `${c.status}${c.reason ? `/${c.reason}` : ''}` : '-'}`;
    })
    .join(' ');

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function conditionTrue(obj: unknown, type: string): boolean {
  const conds = (obj as { status?: { conditions?: Array<{ type: string; status: string }> } }).status?.conditions ?? [];
  return conds.some((c) => c.type === type && c.status === 'True');
}

async function createAll(kc: KubeConfig, objects: KubernetesObject[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  for (const o of objects) {
    try {
      await api.create(o);
    } catch (err) {
      throw new Error(`creating ${o.kind} ${o.metadata?.name ?? ''}: ${(err as Error).message}`);
    }
  }
}

/**
 * Starts envtest (etcd, kube-apiserver, kube-controller-manager for node lifecycle), installs
 * the Cluster API and CAPO CRDs, runs the real Cluster API manager with its webhooks, and
 * creates a self-managed Cluster whose worker MachineDeployment gets real nodeRefs to fake
 * kubelets. Everything started here is stopped by stop(), or on failure before returning.
 */
export async function startCapiEnvironment(opts: CapiEnvironmentOptions = {}): Promise<CapiEnvironment> {
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  const namespace = opts.namespace ?? 'capi-e2e';
  const clusterName = opts.clusterName ?? 'self';
  const mdName = opts.machineDeploymentName ?? `${clusterName}-workers`;
  const replicas = opts.replicas ?? 3;

  const assets = await ensureCapiAssets({ progress });
  const dir = mkdtempSync(join(tmpdir(), 'noderepair-capi-e2e-'));
  let cp: ControlPlane | undefined;
  let manager: CapiManager | undefined;
  let infra: InfraProvider | undefined;

  const collectLogs = (): Record<string, string> => ({
    ...(cp?.logFiles ?? {}),
    ...(manager ? { 'cluster-api-controller': manager.logFile } : {}),
  });
  const stop = async (o: { keepLogs?: boolean } = {}): Promise<string | undefined> => {
    await infra?.stop();
    await manager?.stop();
    let kept: string | undefined;
    if (o.keepLogs) {
      kept = mkdtempSync(join(tmpdir(), 'noderepair-capi-e2e-logs-'));
      for (const [name, file] of Object.entries(collectLogs())) {
        try {
          copyFileSync(file, join(kept, `${name}.log`));
        } catch {
          /* a component that never started has no log */
        }
      }
    }
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
    return kept;
  };

  try {
    cp = await startControlPlane({
      controllerManager: opts.controllerManager ?? { nodeMonitorGracePeriodSeconds: 8, nodeMonitorPeriodSeconds: 1 },
      progress,
    });
    const kc = cp.kubeConfig;
    const webhookPort = await freePort();
    const certs = await generateWebhookCerts(join(dir, 'webhook-certs'));
    const endpoint = { baseUrl: `https://127.0.0.1:${webhookPort}`, caPem: certs.caPem };

    const crdFiles = (d: string) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(d, f));
    const capiCRDs = loadCRDs(crdFiles(assets.capiCrdDir)).map((c) => withConversionWebhook(c, endpoint));
    const capoCRDs = loadCRDs(crdFiles(assets.capoCrdDir)).map((c) =>
      withContractLabel(
        c,
        'v1beta1',
        c.spec.versions.filter((v) => v.served).map((v) => v.name),
      ),
    );
    await cp.installCRDs([...capiCRDs, ...capoCRDs, ...(opts.extraCRDs ?? [])]);
    if (opts.extraObjects?.length) await createAll(kc, opts.extraObjects);

    const admission = kc.makeApiClient(AdmissionregistrationV1Api);
    for (const w of readWebhookConfigurations(assets.capiWebhookManifests, endpoint, 'capi')) {
      if (w.kind === 'MutatingWebhookConfiguration') {
        await admission.createMutatingWebhookConfiguration({ body: w as V1MutatingWebhookConfiguration });
      } else {
        await admission.createValidatingWebhookConfiguration({ body: w as V1ValidatingWebhookConfiguration });
      }
    }

    progress(`capi-e2e: starting cluster-api-controller ${CAPI_VERSION} against ${cp.server}`);
    manager = await CapiManager.start({
      binary: assets.manager,
      kubeconfigPath: cp.kubeconfigPath,
      dir,
      webhookCertDir: certs.dir,
      webhookPort,
      featureGates: opts.featureGates,
      verbosity: opts.managerVerbosity,
    });

    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const access = { server: cp.server, caPem: cp.caPem, token: cp.adminToken };
    await createAll(kc, clusterObjects({ namespace, clusterName, access }));
    await createAll(kc, controlPlaneMachineObjects({ namespace, clusterName }));
    infra = new InfraProvider(kc, {
      namespace,
      clusterName,
      heartbeatSeconds: opts.heartbeatSeconds,
      ...(opts.newServerId ? { newServerId: opts.newServerId } : {}),
    });
    infra.start();

    const custom = kc.makeApiClient(CustomObjectsApi);
    const getCluster = () =>
      custom.getNamespacedCustomObject({ group: CAPI_GROUP, version: 'v1beta2', namespace, plural: 'clusters', name: clusterName });
    const mgr = manager;
    const alive = () => {
      if (!mgr.running) throw new Error(`cluster-api-controller exited:\n${mgr.logTail(4_000)}`);
    };
    await waitFor(
      'Cluster InfrastructureReady and ControlPlaneInitialized',
      async () => {
        alive();
        const c: unknown = await getCluster();
        return conditionTrue(c, 'InfrastructureReady') && conditionTrue(c, 'ControlPlaneInitialized') ? true : undefined;
      },
      180_000,
      500,
    );
    await createAll(kc, machineDeploymentObjects({ namespace, clusterName, name: mdName, replicas }));

    const machines = async (): Promise<MachineView[]> => {
      const list = (await custom.listNamespacedCustomObject({
        group: CAPI_GROUP,
        version: 'v1beta2',
        namespace,
        plural: 'machines',
        labelSelector: `${DEPLOYMENT_NAME_LABEL}=${mdName}`,
      })) as { items: RawMachine[] };
      return list.items.map((m) => ({
        name: m.metadata.name,
        phase: m.status?.phase,
        nodeName: m.status?.nodeRef?.name,
        providerID: m.spec?.providerID,
        conditions: m.status?.conditions ?? [],
        labels: m.metadata.labels ?? {},
        deleting: Boolean(m.metadata.deletionTimestamp),
      }));
    };
    // "Healthy" is Cluster API's own verdict on the node: Running, a nodeRef, NodeHealthy=True.
    // (Machine Ready also folds in HealthCheckSucceeded, which an MHC may leave stale.)
    const waitForHealthyMachines = async (count: number, timeoutMs = 180_000): Promise<MachineView[]> => {
      const deadline = Date.now() + timeoutMs;
      let last: MachineView[] = [];
      for (;;) {
        alive();
        last = (await machines()).filter((m) => !m.deleting);
        const healthy = last.filter((m) => m.phase === 'Running' && m.nodeName && conditionOf(m, 'NodeHealthy')?.status === 'True');
        if (healthy.length === count && last.length === count) return last;
        if (Date.now() > deadline) {
          throw new Error(
            `timed out after ${timeoutMs} ms waiting for ${count} worker Machines Running with a nodeRef and NodeHealthy=True; ` +
              `have: ${last.map(describeMachine).join('; ') || 'none'}`,
          );
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    if (opts.waitForMachines ?? true) await waitForHealthyMachines(replicas);

    const controlPlane = cp;
    const provider = infra;
    return {
      controlPlane,
      kubeConfig: kc,
      namespace,
      clusterName,
      machineDeploymentName: mdName,
      manager: mgr,
      infra: provider,
      fakeKubelets: provider.fakeKubelets,
      versions: { clusterAPI: CAPI_VERSION, capo: CAPO_VERSION, kubernetes: controlPlane.version },
      async scaleMachineDeployment(n: number) {
        await custom.patchNamespacedCustomObject(
          { group: CAPI_GROUP, version: 'v1beta2', namespace, plural: 'machinedeployments', name: mdName, body: { spec: { replicas: n } } },
          mergePatch,
        );
      },
      machines,
      waitForHealthyMachines,
      logs: collectLogs,
      stop,
    };
  } catch (err) {
    const kept = await stop({ keepLogs: true }).catch(() => undefined);
    const where = kept ? ` (logs kept in ${kept})` : '';
    throw new Error(`startCapiEnvironment failed${where}: ${(err as Error).message}`);
  }
}
