// Row "latch survives SIGKILL" (issue 46): `noderepair run` as a real process (a
// ServiceAccount token bound to examples/standalone/rbac.yaml, the FAKE recording provider by
// `--provider-module`) with `stormGuard.latch`. Two of three nodes fail at once (over
// maxUnhealthy 1): the storm guard holds, and after afterHeldFor it latches, persisting the
// latch on the Lease noderepair-system/noderepair-autorepair-latch (the shipped leader-election
// Role must allow it). The process is SIGKILLed, the storm lifts while it is down, and a new
// process finds one broken node: it must stay held (the latch survived) until a person
// removes the annotation, then be repaired once.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  createKubeClient,
  LeaseResource,
  type KubeClient,
  type KubeObject,
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
import { until } from '../src/wait.js';
import { doubleActions, recordedRequests } from '../src/provider-record.js';
import { chaosDir, record } from './support/chaos-file.js';

const SCOPE = 'chaos.noderepair.dev/brakes';
const NS = 'noderepair-system';
const LATCH_LEASE = 'noderepair-autorepair-latch';
const LATCHED = 'noderepair.io/latched';
const NODES = ['brakes-0', 'brakes-1', 'brakes-2'];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '2s' }],
  ladder: [{ action: 'SoftReboot', timeout: '10m', attempts: 1 }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  drain: { enabled: false },
  stormGuard: {
    maxUnhealthy: 1,
    minUnhealthyAllowed: 0,
    maxInFlight: 3,
    recheckInterval: '1s',
    cooldown: '1s',
    latch: { afterHeldFor: '3s' },
  },
};

describe('latch survives SIGKILL', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let core: CoreV1Api;
  let kubeconfig: string;
  let policyPath: string;
  const procs: ControllerProcess[] = [];
  const kubelets = new Map<string, FakeKubelet>();

  function startController(i: number): ControllerProcess {
    return ControllerProcess.start({
      name: `noderepair-brakes-${i}`,
      entry: noderepairCliMain,
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
        '0',
      ],
      // The latch Lease is in the leader-election namespace: $POD_NAMESPACE, as in deploy.yaml.
      env: { POD_NAME: `noderepair-brakes-${i}`, POD_NAMESPACE: NS },
      logFile: join(chaosDir(), 'brakes.log'),
    });
  }

  const latchValue = async () =>
    (
      await client
        .get<KubeObject>(LeaseResource, LATCH_LEASE, {
          namespace: NS,
        })
        .catch(() => undefined)
    )?.metadata?.annotations?.[LATCHED];

  const heldReason = async (name: string) =>
    (await core.readNode({ name })).status?.conditions?.find(
      (c) => c.type === 'NodeRepairHeld' && c.status === 'True',
    )?.reason;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-brakes-'));
    cp = await startControlPlane({ startTimeoutMs: 120_000 });
    client = createKubeClient(cp.kubeConfig);
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const rbac = YAML.parseAllDocuments(
      readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null);
    await applyObjects(cp.kubeConfig, rbac);
    const token = await serviceAccountToken(cp.kubeConfig, NS, 'noderepair');
    kubeconfig = tokenKubeconfig(join(dir, 'kubeconfig'), cp.server, cp.caPem, token, 'noderepair');
    for (const name of NODES)
      kubelets.set(
        name,
        await startFakeKubelet(cp.kubeConfig, {
          name,
          labels: { [SCOPE]: 'yes' },
          heartbeatSeconds: 2,
          providerID: `test:///${name}`,
        }),
      );
    policyPath = join(dir, 'policy.yaml');
    writeFileSync(policyPath, YAML.stringify(POLICY));
  });

  afterAll(async () => {
    for (const p of procs) await p.stop().catch(() => undefined);
    for (const k of kubelets.values()) await k.stop().catch(() => undefined);
    await cp?.stop();
  });

  it('the latch set before a SIGKILL holds the restarted controller until a person removes it', async () => {
    procs.push(startController(0));
    await kubelets.get(NODES[0]!)!.setNotReady();
    await kubelets.get(NODES[1]!)!.setNotReady();
    const set = await until('the latch set on its Lease', latchValue, 60_000, 250);
    const first = procs[0]!;
    await first.kill();
    await kubelets.get(NODES[1]!)!.setReady();

    const second = startController(1);
    procs.push(second);
    // The storm is over: only the latch can hold node 0 now.
    await until(
      'node 0 held by the latch after the restart',
      async () => (await heldReason(NODES[0]!)) === 'Latched' || undefined,
      60_000,
      250,
    );
    await sleep(3000);
    const whileLatched = recordedRequests([...first.lines, ...second.lines]);

    // A person removes the annotation: node 0 is repaired at its next recheck.
    await client.patch(
      LeaseResource,
      LATCH_LEASE,
      { type: 'merge', body: { metadata: { annotations: { [LATCHED]: null } } } },
      { namespace: NS },
    );
    await until(
      'node 0 repaired after the reset',
      async () => recordedRequests(second.lines).some((r) => r.node === NODES[0]) || undefined,
      60_000,
      250,
    );
    const all = recordedRequests([...first.lines, ...second.lines]);
    const doubles = doubleActions(all);
    const crashes = (first.crashed ? 1 : 0) + (second.crashed ? 1 : 0);
    record({
      fault: 'latch (stormGuard.latch)',
      variant: 'latched by a 2-of-3 storm, SIGKILLed, storm over before the restart',
      injected: 1,
      survived:
        whileLatched.length === 0 && all.length === 1 && doubles.doubles === 0 && crashes === 0
          ? 1
          : 0,
      doubleReboots: doubles.doubles,
      crashes,
      fuzzInputs: 0,
      note: `requests while latched: ${whileLatched.length}; after the reset: ${all.map((r) => r.node).join(', ')}`,
    });
    expect(JSON.parse(set)).toMatchObject({ reason: expect.stringMatching(/afterHeldFor/) });
    expect(whileLatched).toEqual([]);
    expect(all.map((r) => r.node)).toEqual([NODES[0]]);
    expect(doubles.details).toEqual([]);
    expect(crashes).toBe(0);
  });
});
