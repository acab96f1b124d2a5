// Row "blocked drains with other repairs on time" (issue 20): `noderepair run` as a real
// process (a ServiceAccount token bound to examples/standalone/rbac.yaml, the FAKE recording
// provider of src/fake-recording-provider.ts) with its default worker count, 4. Four nodes each carry a pod under a
// PodDisruptionBudget that never allows an eviction (the real disruption controller computes
// it: minAvailable = every pod), so the Eviction API answers 429 for as long as the test runs.
// All four go NotReady and their repairs start draining. A fifth node, with nothing on it,
// goes NotReady afterwards: when drains blocked a worker each, four of them stopped every
// other repair. Its repair must reach its action (the provider accepted its SoftReboot)
// while the four are still draining, their pods still in place.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions } from '@kubernetes/client-node';
import {
  createKubeClient,
  EventResource,
  type KubeClient,
  type KubeEvent,
} from '@noderepair/core/kube';
import {
  freePort,
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
import { until } from '../src/wait.js';
import { doubleActions, recordedRequests } from '../src/provider-record.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SCOPE = 'chaos.noderepair.dev/drain';
const STATE = 'noderepair.io/repair-state';
const NS = 'drain';
// The controller's default worker count (AutoRepairOptions.concurrency): as many blocked
// drains as workers is what used to stop every other repair.
const WORKERS = 4;
const BLOCKED = Array.from({ length: WORKERS }, (_, i) => `drain-blocked-${i}`);
const FIFTH = 'drain-free';
const TIMEOUT_MS = 3_000;
// A guard against hanging, not a performance claim: the fifth repair is expected to act
// within a few reconciles of its timeout, and the test only fails if it takes longer than this.
const ACTED_WITHIN_MS = 60_000;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: `${TIMEOUT_MS / 1000}s` }],
  ladder: [{ action: 'SoftReboot', timeout: '10m', attempts: 1 }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  // Far beyond the test: the four drains are still going when the fifth repair acts.
  drain: { enabled: true, timeout: '30m', outOfServiceAfter: '2s' },
  // The four and the fifth may all be in flight: only the drains can hold the fifth up.
  stormGuard: { maxUnhealthy: '100%', maxInFlight: WORKERS + 1, recheckInterval: '1s' },
};

interface DrainView {
  phase?: string;
  remediation?: {
    drain?: { startedAt?: string; endedAt?: string };
    intent?: { action?: string; completedAt?: string; result?: string };
  };
}

describe('blocked drains with other repairs on time', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let core: CoreV1Api;
  let policyApi: PolicyV1Api;
  let proc: ControllerProcess;
  let token: string;
  const kubelets = new Map<string, FakeKubelet>();

  async function stateOf(name: string): Promise<DrainView | undefined> {
    const raw = (await core.readNode({ name })).metadata?.annotations?.[STATE];
    return raw ? (JSON.parse(raw) as DrainView) : undefined;
  }

  /** When an Event last happened: a repeat with the same note extends the first one's series. */
  const lastSeen = (e: KubeEvent) =>
    Date.parse(e.series?.lastObservedTime ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '');

  async function eventsFor(node: string): Promise<KubeEvent[]> {
    return (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
      (e) => e.regarding?.kind === 'Node' && e.regarding.name === node,
    );
  }

  /** A pod bound to `node`, reported Running and Ready as a kubelet would (else no budget applies). */
  async function readyPod(name: string, node: string): Promise<void> {
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: {
          name,
          labels: { app: name },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name,
              uid: `00000000-0000-0000-0000-00000000000${BLOCKED.indexOf(node)}`,
              controller: true,
            },
          ],
        },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    await core.patchNamespacedPodStatus(
      {
        name,
        namespace: NS,
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      },
      mergePatch,
    );
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-drain-'));
    cp = await startControlPlane({
      startTimeoutMs: 120_000,
      // The disruption controller computes each budget's status (0 disruptions allowed).
      controllerManager: { controllers: ['node-lifecycle-controller', 'disruption-controller'] },
    });
    client = createKubeClient(cp.kubeConfig);
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    policyApi = cp.kubeConfig.makeApiClient(PolicyV1Api);
    const rbac = YAML.parseAllDocuments(
      readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null);
    await applyObjects(cp.kubeConfig, rbac);
    token = await serviceAccountToken(cp.kubeConfig, 'noderepair-system', 'noderepair');
    const kubeconfig = tokenKubeconfig(
      join(dir, 'kubeconfig'),
      cp.server,
      cp.caPem,
      token,
      'noderepair',
    );
    for (const name of [...BLOCKED, FIFTH])
      kubelets.set(
        name,
        await startFakeKubelet(cp.kubeConfig, {
          name,
          labels: { [SCOPE]: 'yes' },
          heartbeatSeconds: 2,
          providerID: `test:///${name}`,
        }),
      );
    await core.createNamespace({ body: { metadata: { name: NS } } });
    for (const [i, node] of BLOCKED.entries()) {
      const pod = `web-${i}`;
      await readyPod(pod, node);
      await policyApi.createNamespacedPodDisruptionBudget({
        namespace: NS,
        body: {
          metadata: { name: pod },
          spec: { minAvailable: 1, selector: { matchLabels: { app: pod } } },
        },
      });
    }
    // Each budget computed: no eviction allowed, and the pod counted healthy (so the 429 is
    // the budget's verdict, not a budget the server has not processed yet).
    await until('every budget computed with 0 disruptions allowed', async () => {
      const pdbs = (await policyApi.listNamespacedPodDisruptionBudget({ namespace: NS })).items;
      return pdbs.length === WORKERS &&
        pdbs.every(
          (p) =>
            (p.status?.observedGeneration ?? 0) >= (p.metadata?.generation ?? 1) &&
            p.status?.currentHealthy === 1 &&
            p.status.disruptionsAllowed === 0,
        )
        ? true
        : undefined;
    });
    const policyPath = join(dir, 'policy.yaml');
    writeFileSync(policyPath, YAML.stringify(POLICY));
    const probe = await freePort();
    proc = ControllerProcess.start({
      name: 'noderepair-drain',
      entry: noderepairCliMain,
      // No --workers-like flag: the CLI runs the controller's default worker count.
      args: [
        'run',
        '--kubeconfig',
        kubeconfig,
        '--policy',
        policyPath,
        '--provider-module',
        fakeRecordingProviderModule,
        '--label-selector',
        SCOPE,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        `127.0.0.1:${probe}`,
      ],
      env: { POD_NAME: 'noderepair-drain-0' },
      logFile: join(chaosDir(), 'drain.log'),
    });
    proc.probePort = probe;
    await until('the controller healthy', async () => (await proc.healthy()) || undefined);
  });

  afterAll(async () => {
    await proc?.stop();
    for (const k of kubelets.values()) await k.stop().catch(() => undefined);
    await cp?.stop();
  });

  it('four drains a PodDisruptionBudget never allows: a fifth repair still reaches its action', async () => {
    await Promise.all(BLOCKED.map((n) => kubelets.get(n)!.setNotReady()));
    // All four repairs are in their drain, and each budget has refused at least once.
    await until(
      'four drains refused by their budgets',
      async () => {
        for (const n of BLOCKED) {
          const st = await stateOf(n);
          if (st?.phase !== 'Remediating' || st.remediation?.drain?.startedAt === undefined)
            return undefined;
          const refused = (await eventsFor(n)).some(
            (e) => e.reason === 'Draining' && /PodDisruptionBudget/.test(e.note ?? ''),
          );
          if (!refused) return undefined;
        }
        return true;
      },
      120_000,
      500,
    );

    const notReadyAt = Date.now();
    await kubelets.get(FIFTH)!.setNotReady();
    const acted = await until(
      'the fifth repair to reach its action',
      async () =>
        (await eventsFor(FIFTH)).find(
          (e) => e.reason === 'ActionAccepted' && e.action === 'SoftReboot',
        ),
      // The bound is measured from the fifth node's timeout; see ACTED_WITHIN_MS.
      TIMEOUT_MS + ACTED_WITHIN_MS,
      250,
    );
    const actedAt = lastSeen(acted);
    const afterTimeoutMs = actedAt - (notReadyAt + TIMEOUT_MS);

    // The four are still draining, now: no end to their drains, no action sent, pods in place.
    const blockedViews = await Promise.all(BLOCKED.map((n) => stateOf(n)));
    const pods = await Promise.all(
      BLOCKED.map((_, i) => core.readNamespacedPod({ name: `web-${i}`, namespace: NS })),
    );
    const blockedActed = (await Promise.all(BLOCKED.map((n) => eventsFor(n)))).map((evs) =>
      evs.filter((e) => e.reason === 'ActionAccepted' || e.reason === 'Drained'),
    );
    const stillDraining = blockedViews.filter(
      (st, i) =>
        st?.phase === 'Remediating' &&
        st.remediation?.drain?.startedAt !== undefined &&
        st.remediation.drain.endedAt === undefined &&
        // The intent is written when the repair starts; completedAt only once the action was sent.
        st.remediation.intent?.completedAt === undefined &&
        pods[i]!.metadata?.deletionTimestamp === undefined &&
        blockedActed[i]!.length === 0,
    ).length;
    const fifth = await stateOf(FIFTH);
    // And they go on: each budget refuses a pass again after the fifth acted (a drain pass
    // every 5 s), so the four were not given up to make room.
    const refusedAgain = await until(
      'each blocked drain refused again after the fifth acted',
      async () => {
        for (const n of BLOCKED) {
          const again = (await eventsFor(n)).some(
            (e) =>
              e.reason === 'Draining' &&
              /PodDisruptionBudget/.test(e.note ?? '') &&
              lastSeen(e) > actedAt,
          );
          if (!again) return undefined;
        }
        return true;
      },
      60_000,
      500,
    ).catch(() => false);

    // The provider's record: the 5th's SoftReboot once, nothing sent twice.
    const doubles = doubleActions(recordedRequests(proc.lines));
    record({
      fault: 'blocked drains (PDB refuses eviction)',
      variant: `${WORKERS} drains refused for ever (= default workers), a 5th node NotReady after`,
      injected: WORKERS + 1,
      survived:
        stillDraining === WORKERS &&
        refusedAgain &&
        fifth?.remediation?.intent?.result === 'Succeeded' &&
        doubles.doubles === 0
          ? WORKERS + 1
          : 0,
      doubleReboots: doubles.doubles,
      crashes: proc.crashed ? 1 : 0,
      fuzzInputs: 0,
      note: `the 5th acted ${Math.max(0, Math.round(afterTimeoutMs / 100) / 10)}s after its timeout while ${stillDraining}/${WORKERS} drains were still refused`,
    });

    expect(stillDraining).toBe(WORKERS);
    expect(refusedAgain).toBe(true);
    expect(doubles.details).toEqual([]);
    expect(fifth?.phase).toBe('Verifying');
    expect(fifth?.remediation?.drain?.endedAt).toBeDefined();
    expect(fifth?.remediation?.intent?.action).toBe('SoftReboot');
    expect(fifth?.remediation?.intent?.result).toBe('Succeeded');
    expect(acted.note).toContain(`fake-recording: would SoftReboot ${FIFTH}`);
    // Not before its own timeout. The condition's lastTransitionTime, which the timeout counts
    // from, has whole seconds: it may read up to 1 s before the test's notReadyAt.
    expect(afterTimeoutMs).toBeGreaterThanOrEqual(-1_000);
    expect(proc.running).toBe(true);
    expect(proc.crashed).toBe(false);
  });

  it('no credential in its log lines or events', async () => {
    const events = (await client.list<KubeEvent>(EventResource)).items;
    const r = scanForSecrets(proc.lines, events, [token, cp.adminToken]);
    record({
      fault: 'secret scan (logs + events)',
      variant: 'blocked drain runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(5);
    expect(r.leaks).toEqual([]);
    expect(proc.crashed).toBe(false);
  });
});
