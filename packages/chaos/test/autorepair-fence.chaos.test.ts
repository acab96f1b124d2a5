// Row "partitioned node never tainted before fence": `noderepair run` as a real process (a
// ServiceAccount token bound to examples/standalone/rbac.yaml) with a FAKE recording provider
// (src/fake-recording-provider.ts), which accepts every action and fences nothing, against a real kube-apiserver with the real
// node lifecycle and pod GC controllers. A node's fake kubelet stops posting (a partition:
// Ready=Unknown, its StatefulSet pod may still be writing). Faults: the partition, and the
// controller SIGKILLed and restarted while it waits for the fence. A sampler reads the Node
// and the pod every 250 ms through the whole ladder (HardReboot, then Replace, then giving
// up): node.kubernetes.io/out-of-service never appears and the pod is never force-deleted.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  createKubeClient,
  EventResource,
  type KubeClient,
  type KubeEvent,
} from '@noderepair/core/kube';
import {
  startControlPlane,
  startFakeKubelet,
  type ControlPlane,
  type FakeKubelet,
} from '@noderepair/envtest';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControllerProcess,
  fakeRecordingProviderModule,
  noderepairCliMain,
  repoRoot,
} from '../src/controller-process.js';
import {
  applyObjects,
  serviceAccountToken,
  tokenKubeconfig,
  type ManifestObject,
} from '../src/least-privilege.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { sleep, until } from '../src/wait.js';
import { doubleActions, recordedRequests } from '../src/provider-record.js';
import { chaosDir, record } from './support/chaos-file.js';

const SCOPE = 'chaos.noderepair.dev/fence';
const STATE = 'noderepair.io/repair-state';
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
const NODE = 'fence-0';
const NS = 'fence';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
  ladder: [
    { action: 'HardReboot', timeout: '20s', attempts: 1 },
    { action: 'Replace', timeout: '20s', attempts: 1 },
  ],
  minHealthyPeriod: '2s',
  retryBackoff: '1s',
  drain: { enabled: true, timeout: '30s', outOfServiceAfter: '2s' },
  stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
};

interface Sample {
  tainted: boolean;
  podGone: boolean;
  phase: string | undefined;
}

describe('partitioned node never tainted before fence', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let core: CoreV1Api;
  let kubelet: FakeKubelet;
  let dir: string;
  let token: string;
  let kubeconfig: string;
  const procs: ControllerProcess[] = [];
  const samples: Sample[] = [];
  let sampling: NodeJS.Timeout | undefined;

  function startController(i: number): ControllerProcess {
    const p = ControllerProcess.start({
      name: `noderepair-fence-${i}`,
      entry: noderepairCliMain,
      args: [
        'run',
        '--kubeconfig',
        kubeconfig,
        '--policy',
        join(dir, 'policy.yaml'),
        '--provider-module',
        fakeRecordingProviderModule,
        '--label-selector',
        SCOPE,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      env: { POD_NAME: `noderepair-fence-${i}` },
      logFile: join(chaosDir(), 'fence.log'),
    });
    procs.push(p);
    return p;
  }

  async function sample(): Promise<Sample> {
    const node = await core.readNode({ name: NODE });
    const pods = await core.listNamespacedPod({ namespace: NS });
    const raw = node.metadata?.annotations?.[STATE];
    return {
      tainted: (node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE),
      podGone: pods.items.length === 0,
      phase: raw ? (JSON.parse(raw) as { phase?: string }).phase : undefined,
    };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-fence-'));
    cp = await startControlPlane({
      startTimeoutMs: 120_000,
      controllerManager: {
        controllers: ['node-lifecycle-controller', 'pod-garbage-collector-controller'],
        nodeMonitorGracePeriodSeconds: 6,
        nodeMonitorPeriodSeconds: 1,
      },
    });
    client = createKubeClient(cp.kubeConfig);
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const rbac = YAML.parseAllDocuments(
      readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null);
    await applyObjects(cp.kubeConfig, rbac);
    token = await serviceAccountToken(cp.kubeConfig, 'noderepair-system', 'noderepair');
    kubeconfig = tokenKubeconfig(join(dir, 'kubeconfig'), cp.server, cp.caPem, token, 'noderepair');
    writeFileSync(join(dir, 'policy.yaml'), YAML.stringify(POLICY));
    kubelet = await startFakeKubelet(cp.kubeConfig, {
      name: NODE,
      labels: { [SCOPE]: 'yes' },
      heartbeatSeconds: 1,
      providerID: `test:///${NODE}`,
    });
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: {
          name: 'db-0',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'db',
              uid: '00000000-0000-0000-0000-0000000000db',
              controller: true,
            },
          ],
        },
        spec: { nodeName: NODE, containers: [{ name: 'db', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    await core.patchNamespacedPodStatus(
      { name: 'db-0', namespace: NS, body: { status: { phase: 'Running' } } },
      mergePatch,
    );
  });

  afterAll(async () => {
    if (sampling) clearInterval(sampling);
    for (const p of procs) await p.stop().catch(() => undefined);
    await kubelet?.stop().catch(() => undefined);
    await cp?.stop();
  });

  it('through HardReboot, a controller SIGKILL, Replace and giving up: no taint, no force-deleted pod', async () => {
    let proc = startController(0);
    sampling = setInterval(() => {
      sample().then(
        (s) => samples.push(s),
        () => undefined,
      );
    }, 250);
    kubelet.stopHeartbeats(); // the partition
    await until(
      'the HardReboot accepted (Verifying)',
      async () => ((await sample()).phase === 'Verifying' ? true : undefined),
      120_000,
      250,
    );
    await sleep(3_000);
    await proc.kill(); // mid-wait for the fence
    proc = startController(1);
    await until(
      'the ladder exhausted (Failed)',
      async () => ((await sample()).phase === 'Failed' ? true : undefined),
      180_000,
      500,
    );
    // Longer than a pod GC period (20 s) after the last action.
    await sleep(25_000);
    const last = await sample();
    const events = (
      await client.list<KubeEvent>(EventResource, { namespace: 'default' })
    ).items.filter((e) => e.regarding?.name === NODE);
    const reasons = events.map((e) => e.reason);
    const tainted = samples.filter((s) => s.tainted).length + (last.tainted ? 1 : 0);
    const forced = samples.some((s) => s.podGone) || last.podGone;
    const crashes = procs.filter((p) => p.crashed).length;
    // The provider's record over both processes: one HardReboot and one Replace id, each sent
    // fresh once (the successor's resend after the SIGKILL must be a replay of the same id).
    const requests = recordedRequests(procs.flatMap((p) => p.lines));
    const doubles = doubleActions(requests);
    record({
      fault: 'partitioned node (fencing)',
      variant: 'a FAKE provider that never fences: HardReboot, SIGKILL, Replace, give up',
      injected: 2,
      survived: tainted === 0 && !forced && doubles.doubles === 0 ? 2 : 0,
      doubleReboots: doubles.doubles,
      crashes,
      fuzzInputs: 0,
      note: `${samples.length} samples: out-of-service taint seen ${tainted} times, pod force-deleted: ${forced}`,
    });
    expect(samples.length).toBeGreaterThan(100);
    expect(tainted).toBe(0);
    expect(forced).toBe(false);
    expect(doubles.details).toEqual([]);
    expect([...new Set(requests.map((r) => r.action))].sort()).toEqual(['HardReboot', 'Replace']);
    expect(reasons).toContain('AwaitingFence');
    expect(reasons).not.toContain('Fenced');
    const pod = await core.readNamespacedPod({ name: 'db-0', namespace: NS });
    expect(pod.metadata?.deletionTimestamp).toBeDefined(); // evicted, still bound: not force-deleted
    expect(crashes).toBe(0);

    const r = scanForSecrets(
      procs.flatMap((p) => p.lines),
      events,
      [token, cp.adminToken],
    );
    expect(r.leaks).toEqual([]);
  });
});
